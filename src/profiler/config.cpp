#include "profiler/config.h"

#include <algorithm>
#include <string_view>
#include <utility>

#include "profiler/options.h"
#include "util/join.h"

namespace umbra {
namespace {

constexpr const char* kFormats[] = {"json", "text", "collapsed", "speedscope", "html", "pprof"};

}  // namespace

const char* mode_name(Mode mode) { return mode == Mode::kSampled ? "sampled" : "shadow"; }

const char* hook_family_name(HookFamily family) { return family == HookFamily::kElt2 ? "elt2" : "elt3"; }
const char* precompiled_name(Precompiled precompiled) { return precompiled == Precompiled::kJit ? "jit" : "keep"; }
const char* walker_name(Walker walker) { return walker == Walker::kSuspend ? "suspend" : "signal"; }

bool is_written_format(const std::string& format) {
  return std::find(std::begin(kFormats), std::end(kFormats), format) != std::end(kFormats);
}

std::string format_names() { return join({std::begin(kFormats), std::end(kFormats)}); }

std::vector<std::string> unknown_variable_warnings(const char* const* environment) {
  std::vector<std::string> warnings;
  for (const char* const* entry = environment; entry && *entry; ++entry) {
    std::string_view text(*entry);
    if (text.rfind("UMBRA_", 0) != 0) continue;
    std::string name(text.substr(0, text.find('=')));
    auto known = [&](const Option& option) { return name == option.variable; };
    if (std::any_of(options().begin(), options().end(), known)) continue;
    warnings.push_back(name + " is not a variable umbra reads (a misspelling?); ignoring it");
  }
  return warnings;
}

// Each option in the table's order takes its default, then its variable's value if that is valid. A valid value
// of an option of the other mode does nothing: it gets a line too, once the mode is known.
Config load_config(const EnvLookup& env, int64_t pid, std::vector<std::string>& warnings) {
  Config config;
  std::vector<std::pair<const Option*, std::string>> mode_bound;
  for (const Option& option : options()) {
    if (!option.rule.store) continue;  // the launcher's own
    if (option.default_value) option.rule.store(default_for(option, pid), config, pid);
    auto value = env(option.variable);
    if (!value) continue;
    Verdict verdict = option.rule.store(*value, config, pid);
    if (verdict.problem.empty()) {
      if (option.only_in) mode_bound.emplace_back(&option, *value);
      continue;
    }
    std::string instead = verdict.instead.empty() ? "using " + default_for(option, pid) : verdict.instead;
    warnings.push_back(std::string(option.variable) + "='" + shown_value(option, *value) + "' " + verdict.problem +
                       "; " + instead);
  }
  for (const auto& [option, value] : mode_bound) {
    if (*option->only_in == config.mode) continue;
    warnings.push_back(std::string(option->variable) + "='" + shown_value(*option, value) + "' applies to " +
                       mode_name(*option->only_in) + " mode only; ignoring it in " + mode_name(config.mode) + " mode");
  }
  return config;
}

}  // namespace umbra
