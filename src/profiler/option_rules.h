// The kinds of value an option takes. A rule says in words what a valid value is and stores a valid value into
// Config; the option table (options.h) gives each option one rule, and both the environment and the launcher's
// flags are judged by it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "profiler/config.h"
#include "profiler/value_parsers.h"

namespace umbra {

// What a value given to an option came to.
struct Verdict {
  std::string problem{};       // after the quoted value: "is not shadow or sampled"; empty when the value is valid
  std::string instead{};       // what umbra does instead, when it is not "using <default>"
  std::string flag_problem{};  // the launcher's words, where they differ from the variable's
};

struct Rule {
  std::string expected;  // what a valid value is: "shadow or sampled"
  // Stores a valid value into `config` (`pid`: this process's). A bad one is left out, or the part of it that is
  // bad (UMBRA_FORMATS keeps the formats it knows).
  std::function<Verdict(const std::string& value, Config& config, int64_t pid)> store;
};

Verdict is_not(const std::string& expected);

// A value `parse` takes (nullopt: it does not), stored as it is.
template <typename T, typename Parse>
Rule parsed(T Config::*field, std::string expected, Parse parse) {
  return {expected, [=](const std::string& text, Config& config, int64_t) {
            auto value = parse(text);
            if (!value) return is_not(expected);
            config.*field = T(*value);
            return Verdict{};
          }};
}

// One of `values`, by its name (any case).
template <typename T>
Rule choice(T Config::*field, std::vector<T> values, const char* (*name)(T)) {
  std::vector<std::string> names;
  for (T v : values) names.emplace_back(name(v));
  return parsed(field, or_list(names), [=](const std::string& text) -> std::optional<T> {
    for (T v : values)
      if (lower(text) == name(v)) return v;
    return std::nullopt;
  });
}

struct WholeNumbers {
  uint32_t min, max;
  const char* unit = nullptr;        // "ms"
  const char* zero_means = nullptr;  // "off"
};
Rule whole_number(uint32_t Config::*field, WholeNumbers range);
Rule percentage(double Config::*field);
Rule on_off(bool Config::*field);

// The special ones: any text but the empty one; spdlog's level names and two other spellings of them; a list of
// formats of which the known ones are kept; and the launched process's id, which extends Config's output_prefix
// and sets descendant in the launched program's descendants (read after UMBRA_OUTPUT: options.cpp).
Rule prefix(std::string Config::*field);
Rule log_level(std::string Config::*field);
std::string log_level_names();  // "trace|debug|...": for the usage text
Rule format_list(std::vector<std::string> Config::*field);
Rule launched_pid();
// A length of time ("500ms", "30s", "5m", "1h") from `min_ms` to `max_ms`, stored in milliseconds; a bad one turns
// the option off (`off`: what umbra does then).
Rule duration(uint32_t Config::*field, uint32_t min_ms, uint32_t max_ms, const char* off);
std::string shown_duration(uint32_t ms);  // "500ms", "30s", "5m", "1h"
// Pushing to Pyroscope (profiler/pyroscope_ingest.h): its URL, the application name, extra labels. A bad URL pushes
// nothing; a bad name or label list pushes under the program's name, or with the default labels only.
Rule push_url(std::string Config::*field);
Rule push_name(std::string Config::*field);
Rule push_labels(std::string Config::*field);
// A list of method patterns (names/method_patterns.h), kept as written; a bad one leaves every method hooked.
Rule method_patterns(std::string Config::*field);

}  // namespace umbra
