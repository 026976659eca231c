// The launcher's command line: parsed into environment settings for the profiler and the command to run.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace umbra::launcher {

struct RunRequest {
  std::vector<std::pair<std::string, std::string>> environment;  // UMBRA_* settings from options
  std::vector<std::string> command;
  std::optional<std::string> output_prefix;                        // -o, when given
};

// `umbra attach PID [--duration S] [options]`: the options of `run`, sent to the profiler as client data.
struct AttachRequest {
  long long pid = 0;
  std::vector<std::pair<std::string, std::string>> environment;  // UMBRA_* settings from options
  std::optional<std::string> output_prefix;                        // -o, when given
  uint32_t duration_ms = 0;                                        // 0: until Ctrl-C
};

struct ParseResult {
  std::optional<RunRequest> run;  // set for `run`
  std::optional<AttachRequest> attach;  // set for `attach`
  bool help = false;
  bool version = false;           // `umbra --version`
  std::string error;              // set when the command line is wrong
};

ParseResult parse_command_line(const std::vector<std::string>& args);

std::string usage();

// Where libumbra.so is: $UMBRA_LIBRARY, next to the launcher, or ../lib/umbra/ relative to it.
std::optional<std::string> find_profiler_library(const std::string& launcher_path);

}  // namespace umbra::launcher
