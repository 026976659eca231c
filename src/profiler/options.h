// umbra's options, once: each UMBRA_* variable with its launcher flag, default, help and rule (option_rules.h).
// load_config reads the variables through it; the launcher takes its flags, checks and usage text from it; a unit
// test holds README's options table against it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "profiler/option_rules.h"

namespace umbra {

struct Option {
  const char* variable;
  std::vector<std::string> flags{};     // the launcher's spellings; none: set only through the environment
  const char* value_name = nullptr;     // "N"; nullptr: a switch, whose flag sets the variable to 1
  const char* default_value = nullptr;  // as the variable spells it, "<pid>" standing for the process id
  std::string help{};                   // for the usage text
  Rule rule{};                          // none for UMBRA_LIBRARY, which the launcher reads itself
  std::optional<Mode> only_in{};        // an option of one mode: set in the other, it gets a line saying so
  bool secret = false;                  // its value may hold a password: messages show it redacted
};

// In the order load_config reads them (and the usage text lists them).
const std::vector<Option>& options();
const Option* find_flag(std::string_view flag);

bool is_switch(const Option& option);
// The value as a message may show it: a secret option's with its password hidden.
std::string shown_value(const Option& option, std::string_view value);
std::string default_for(const Option& option, int64_t pid);

// As the usage text and README's table show them: "-o, --output PREFIX", "UMBRA_VERIFY=1", "off".
std::string shown_flags(const Option& option);
std::string shown_variable(const Option& option);
std::string shown_default(const Option& option);

}  // namespace umbra
