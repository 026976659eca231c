#include "profiler/config.h"

#include <algorithm>
#include <cstdint>
#include <string_view>

#include "profiler/value_parsers.h"
#include "util/join.h"

namespace umbra {
namespace {

constexpr const char* kLogLevels[] = {"trace", "debug", "info", "warn", "error", "critical", "off"};
constexpr const char* kFormats[] = {"json", "text", "collapsed", "speedscope", "html"};

template <typename T>
void read(const EnvLookup& env, const char* name, T& field, std::optional<T> (*parse)(const std::string&),
          const std::string& expected, const std::string& fallback, std::vector<std::string>& warnings) {
  auto value = env(name);
  if (!value) return;
  if (auto parsed = parse(*value)) {
    field = *parsed;
    return;
  }
  warnings.push_back(std::string(name) + "='" + *value + "' is not " + expected + "; using " + fallback);
}

}  // namespace

const char* mode_name(Mode mode) { return mode == Mode::kSampled ? "sampled" : "shadow"; }

std::optional<Mode> parse_mode(const std::string& text) {
  std::string t = lower(text);
  if (t == "shadow") return Mode::kShadow;
  if (t == "sampled") return Mode::kSampled;
  return std::nullopt;
}

const char* hook_family_name(HookFamily family) { return family == HookFamily::kElt2 ? "elt2" : "elt3"; }

std::optional<HookFamily> parse_hook_family(const std::string& text) {
  std::string t = lower(text);
  if (t == "elt3") return HookFamily::kElt3;
  if (t == "elt2") return HookFamily::kElt2;
  return std::nullopt;
}

bool is_log_level(const std::string& level) {
  std::string l = lower(level);
  return std::find(std::begin(kLogLevels), std::end(kLogLevels), l) != std::end(kLogLevels);
}

bool is_written_format(const std::string& format) {
  return std::find(std::begin(kFormats), std::end(kFormats), format) != std::end(kFormats);
}

std::string format_names() { return join({std::begin(kFormats), std::end(kFormats)}); }

std::vector<std::string> unknown_variable_warnings(const char* const* environment) {
  // The variables umbra reads are those load_config asks for (it asks for each one whatever the others say),
  // and the launcher's own.
  std::vector<std::string> read = {"UMBRA_LIBRARY"}, ignored;
  load_config(
      [&](const char* name) -> std::optional<std::string> {
        read.emplace_back(name);
        return std::nullopt;
      },
      0, ignored);
  std::vector<std::string> warnings;
  for (const char* const* entry = environment; entry && *entry; ++entry) {
    std::string_view text(*entry);
    if (text.rfind("UMBRA_", 0) != 0) continue;
    std::string name(text.substr(0, text.find('=')));
    if (std::find(read.begin(), read.end(), name) != read.end()) continue;
    warnings.push_back(name + " is not a variable umbra reads (a misspelling?); ignoring it");
  }
  return warnings;
}

Config load_config(const EnvLookup& env, int64_t pid, std::vector<std::string>& warnings) {
  Config config;
  config.output_prefix = "./umbra-" + std::to_string(pid);

  read<Mode>(env, "UMBRA_MODE", config.mode, parse_mode, "shadow or sampled", "shadow", warnings);

  if (auto out = env("UMBRA_OUTPUT")) {
    if (out->empty()) warnings.push_back("UMBRA_OUTPUT='' is empty; using " + config.output_prefix);
    else config.output_prefix = *out;
  }
  // Processes the launched program starts inherit its environment: each descendant writes <prefix>.<pid>.*, so
  // that none overwrites another's report.
  if (auto launched = env("UMBRA_LAUNCHED_PID")) {
    auto launched_pid = parse_unsigned(*launched, 1, uint64_t(INT32_MAX));
    if (!launched_pid)
      warnings.push_back("UMBRA_LAUNCHED_PID='" + *launched + "' is not a process id; writing " +
                         config.output_prefix + ".* as the launched process");
    else if (int64_t(*launched_pid) != pid) {
      config.output_prefix += "." + std::to_string(pid);
      config.descendant = true;
    }
  }

  if (auto level = env("UMBRA_LOG_LEVEL")) {
    std::string l = lower(*level);
    if (l == "warning") l = "warn";
    if (l == "err") l = "error";
    if (is_log_level(l)) {
      config.log_level = l;
    } else {
      warnings.push_back("UMBRA_LOG_LEVEL='" + *level +
                         "' is not trace, debug, info, warn, error, critical or off; using warn");
    }
  }

  read<double>(env, "UMBRA_MIN_PERCENT", config.min_percent, parse_percent, "a percentage from 0 to 100", "0.5",
               warnings);

  auto interval = [](const std::string& t) -> std::optional<uint32_t> {
    if (auto v = parse_unsigned(t, 1, 60000)) return uint32_t(*v);
    return std::nullopt;
  };
  read<uint32_t>(env, "UMBRA_INTERVAL_MS", config.interval_ms, interval, "a whole number of ms from 1 to 60000",
                 "10", warnings);

  auto reconcile = [](const std::string& t) -> std::optional<uint32_t> {
    if (auto v = parse_unsigned(t, 0, 60000)) return uint32_t(*v);
    return std::nullopt;
  };
  read<uint32_t>(env, "UMBRA_RECONCILE_MS", config.reconcile_ms, reconcile,
                 "a whole number of ms from 0 (off) to 60000", "100", warnings);
  read<bool>(env, "UMBRA_VERIFY", config.verify, parse_bool, "0 or 1", "0", warnings);

  auto depth = [](const std::string& t) -> std::optional<uint32_t> {
    if (auto v = parse_unsigned(t, 16, 1u << 24)) return uint32_t(*v);
    return std::nullopt;
  };
  read<uint32_t>(env, "UMBRA_MAX_DEPTH", config.max_depth, depth, "a whole number from 16 to 16777216", "65536",
                 warnings);

  read<HookFamily>(env, "UMBRA_HOOKS", config.hooks, parse_hook_family, "elt3 or elt2", "elt3", warnings);
  read<bool>(env, "UMBRA_EXACT_TIMES", config.exact_times, parse_bool, "0 or 1", "0", warnings);
  read<bool>(env, "UMBRA_BENCH_NOOP_HOOKS", config.noop_hooks, parse_bool, "0 or 1", "0", warnings);
  read<bool>(env, "UMBRA_ALLOW_INLINING", config.allow_inlining, parse_bool, "0 or 1", "0", warnings);

  if (auto formats = env("UMBRA_FORMATS")) {
    std::vector<std::string> chosen, skipped;
    for (const auto& f : split_list(*formats)) {
      if (!is_written_format(f)) skipped.push_back("'" + f + "'");
      else if (std::find(chosen.begin(), chosen.end(), f) == chosen.end()) chosen.push_back(f);
    }
    // One line for the variable, however many of its items are wrong.
    std::string known = " (known: " + format_names() + ")";
    if (chosen.empty()) {
      warnings.push_back("UMBRA_FORMATS='" + *formats + "' names no format umbra writes" + known +
                         "; using json,text");
    } else {
      config.formats = chosen;
      if (!skipped.empty())
        warnings.push_back("UMBRA_FORMATS='" + *formats + "' names unknown format" +
                           (skipped.size() > 1 ? "s " : " ") + join(skipped, ", ") + known + "; skipping " +
                           (skipped.size() > 1 ? "them" : "it"));
    }
  }
  return config;
}

}  // namespace umbra
