// Which process umbra is profiling, for the report's header and the launcher's list of reports: the arguments the
// process was started with (/proc/self/cmdline) and the program they run. Read once at start-up, off every hot path.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace umbra {

struct ProcessIdentity {
  std::string program;                    // "MSBuild.dll", "testhost.dll", "KnownCounts", "dotnet"
  std::vector<std::string> command_line;  // empty if /proc/self/cmdline could not be read
};

// This process's arguments, at most kMaxCommandLineBytes of them (the rest is left out), and its program.
ProcessIdentity this_process();
inline constexpr size_t kMaxCommandLineBytes = size_t(1) << 20;

// /proc/<pid>/cmdline's contents (arguments each ended by a NUL) as arguments.
std::vector<std::string> split_command_line(std::string_view cmdline);

// The managed entry assembly when the arguments run one through the dotnet muxer (`dotnet [exec] [host options]
// App.dll ...`: App.dll), else the executable's file name: an app host (KnownCounts), or `dotnet` itself running an
// SDK command (`dotnet build`), whose assembly the arguments do not name.
std::string program_of(const std::vector<std::string>& args);

}  // namespace umbra
