#include "profiler/option_rules.h"

#include <algorithm>
#include <climits>

#include "names/method_patterns.h"
#include "profiler/pyroscope_ingest.h"
#include "util/join.h"

namespace umbra {
namespace {

constexpr const char* kLogLevels[] = {"trace", "debug", "info", "warn", "error", "critical", "off"};

}  // namespace

Verdict is_not(const std::string& expected) { return {.problem = "is not " + expected}; }

Rule whole_number(uint32_t Config::*field, WholeNumbers range) {
  std::string expected = "a whole number" + (range.unit ? std::string(" of ") + range.unit : "") + " from " +
                         std::to_string(range.min) +
                         (range.zero_means ? std::string(" (") + range.zero_means + ")" : "") + " to " +
                         std::to_string(range.max);
  return parsed(field, expected, [=](const std::string& text) { return parse_unsigned(text, range.min, range.max); });
}

Rule percentage(double Config::*field) { return parsed(field, "a percentage from 0 to 100", parse_percent); }

Rule on_off(bool Config::*field) { return parsed(field, "0 or 1", parse_bool); }

// A path prefix: any text but the empty one names a file (an unwritable one falls back when written).
Rule prefix(std::string Config::*field) {
  std::string expected = "a non-empty prefix";
  return {expected, [=](const std::string& text, Config& config, int64_t) {
            if (text.empty()) return Verdict{.problem = "is empty", .flag_problem = "needs " + expected};
            config.*field = text;
            return Verdict{};
          }};
}

Rule log_level(std::string Config::*field) {
  std::string expected = or_list({std::begin(kLogLevels), std::end(kLogLevels)});
  return {expected, [=](const std::string& text, Config& config, int64_t) {
            std::string level = lower(text);
            // Spellings people type for spdlog's names.
            if (level == "warning") level = "warn";
            if (level == "err") level = "error";
            if (std::find(std::begin(kLogLevels), std::end(kLogLevels), level) == std::end(kLogLevels))
              return is_not(expected);
            config.*field = level;
            return Verdict{};
          }};
}

std::string log_level_names() { return join({std::begin(kLogLevels), std::end(kLogLevels)}, "|"); }

// The formats umbra writes are kept, once each; one line names all the others.
Rule format_list(std::vector<std::string> Config::*field) {
  std::string known = " (known: " + format_names() + ")";
  return {"a list of formats" + known, [=](const std::string& text, Config& config, int64_t) {
            std::vector<std::string> chosen, skipped;
            for (const auto& f : split_list(text)) {
              if (!is_written_format(f)) skipped.push_back("'" + f + "'");
              else if (std::find(chosen.begin(), chosen.end(), f) == chosen.end()) chosen.push_back(f);
            }
            if (!chosen.empty()) config.*field = chosen;
            if (skipped.empty())
              return chosen.empty() ? Verdict{.problem = "names no format umbra writes" + known} : Verdict{};
            bool many = skipped.size() > 1;
            std::string unknown = many ? "names unknown formats " : "names unknown format ";
            Verdict verdict{.problem = unknown + join(skipped) + known};
            if (!chosen.empty()) verdict.instead = many ? "skipping them" : "skipping it";
            return verdict;
          }};
}

Rule duration(uint32_t Config::*field, uint32_t min_ms, uint32_t max_ms, const char* off) {
  std::string expected = "a duration from " + shown_duration(min_ms) + " to " + shown_duration(max_ms) +
                         " (like 500ms, 30s, 5m, 1h)";
  return {expected, [=](const std::string& text, Config& config, int64_t) {
            std::optional<uint64_t> ms = parse_duration_ms(text, min_ms, max_ms);
            if (!ms) return Verdict{.problem = "is not " + expected, .instead = off};
            config.*field = uint32_t(*ms);
            return Verdict{};
          }};
}

std::string shown_duration(uint32_t ms) {
  if (ms % 3600000 == 0) return std::to_string(ms / 3600000) + "h";
  if (ms % 60000 == 0) return std::to_string(ms / 60000) + "m";
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + "s";
  return std::to_string(ms) + "ms";
}

Rule push_url(std::string Config::*field) {
  std::string expected = "an http:// or https:// URL (Pyroscope's, like http://pyroscope:4040)";
  return {expected, [=](const std::string& text, Config& config, int64_t) {
            if (!is_push_url(text)) return Verdict{.problem = "is not " + expected, .instead = "not pushing"};
            config.*field = text;
            return Verdict{};
          }};
}

Rule push_name(std::string Config::*field) {
  std::string expected = "an application name (letters, digits, and _ . - /)";
  return {expected, [=](const std::string& text, Config& config, int64_t) {
            if (!is_application_name(text))
              return Verdict{.problem = "is not " + expected, .instead = "pushing under the program's name"};
            config.*field = text;
            return Verdict{};
          }};
}

Rule push_labels(std::string Config::*field) {
  std::string expected = "a list of labels, key=value,... (keys of letters, digits, _ and .; values without , { } =)";
  return {expected, [=](const std::string& text, Config& config, int64_t) {
            std::string bad;
            if (!parse_labels(text, &bad))
              return Verdict{.problem = "is not " + expected + ": '" + bad + "' is not a label",
                             .instead = "pushing with the labels host, pid and mode only"};
            config.*field = text;
            return Verdict{};
          }};
}

Rule method_patterns(std::string Config::*field) {
  std::string expected = "a list of method patterns ([Assembly]Namespace.Type.Method globs, !exclusions, @app) or all";
  return {expected, [=](const std::string& text, Config& config, int64_t) {
            std::string bad;
            if (text == "all" || text == "*") {  // every method: full shadow mode, no mapper
              config.*field = "";
              return Verdict{};
            }
            if (MethodPatterns::parse(text, &bad)) {
              config.*field = text;
              return Verdict{};
            }
            return Verdict{.problem = "is not " + expected + ": '" + bad + "' is not a pattern",
                           .instead = "hooking the program's own code (@app)"};
          }};
}

// Processes the launched program starts inherit its environment: each descendant writes <prefix>.<pid>.*, so that
// none overwrites another's report. Read after UMBRA_OUTPUT, whose prefix it extends.
Rule launched_pid() {
  std::string expected = "a process id";
  return {expected, [=](const std::string& text, Config& config, int64_t pid) {
            auto launched = parse_unsigned(text, 1, uint64_t(INT32_MAX));
            if (!launched) {
              Verdict verdict = is_not(expected);
              verdict.instead = "writing " + config.output_prefix + ".* as the launched process";
              return verdict;
            }
            config.launched_pid = int64_t(*launched);
            if (int64_t(*launched) != pid) {
              config.output_prefix += "." + std::to_string(pid);
              config.descendant = true;
            }
            return Verdict{};
          }};
}

}  // namespace umbra
