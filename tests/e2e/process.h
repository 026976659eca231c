// Runs a command to completion with extra environment variables and captures its output and exit status.
#pragma once

#include <sys/types.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace umbra::testing {

struct ProcessResult {
  int exit_code = -1;  // 128 + signal when killed by a signal
  std::string out;
  std::string err;
};

// `env` entries are set (an empty optional-like "\x01unset" value removes the variable instead).
inline constexpr const char* kUnset = "\x01unset";

// How many times `needle` occurs in `text` (a message expected once, say).
size_t occurrences(const std::string& text, const std::string& needle);

// `while_running`, if given, runs on a thread of its own with the process's pid as soon as it is started (to signal
// it, read its /proc entries); it must return before the process can be reaped.
ProcessResult run_process(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env = {},
                          int timeout_seconds = 300, const std::function<void(pid_t)>& while_running = {});

}  // namespace umbra::testing
