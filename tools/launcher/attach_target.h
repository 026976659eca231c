// The process `umbra attach` is asked to profile: where its runtime's diagnostics socket is, or, in one line, why
// there is none to attach to (no such process, another user's, not .NET, diagnostics turned off).
//
// The runtime listens on $TMPDIR/dotnet-diagnostic-{pid}-{key}-socket, $TMPDIR as the target process has it
// (/tmp if unset) and {key} the process's start time in clock ticks since boot (field 22 of /proc/{pid}/stat),
// which tells the socket from one a dead process of the same pid left behind. Only a socket of the program's own
// user is taken (by lstat: never through a link); the launcher also checks who listens on it (diagnostics_ipc.h).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace umbra::launcher {

struct AttachTarget {
  std::string socket_path;  // set when found
  std::string problem;      // set when not: one line, without the "umbra: " prefix
  std::string name;         // the process's name (/proc/{pid}/comm), for messages
  uid_t uid = 0;            // its effective user and group, who must be able to use the control directory
  gid_t gid = 0;
};

AttachTarget find_attach_target(long long pid);

// What root needs of a process before it works as the process's user (program_user.h), read from /proc alone: its
// name, user, group and supplementary groups, and $TMPDIR as it has it (/tmp if unset); `problem` set (one line)
// when there is no such process or it is another user's (`verb` says what to do as that user: "attach", "ask").
struct ProcessBasics {
  std::string name, tmp_directory, problem;
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;
};
ProcessBasics process_basics(long long pid, const char* verb = "ask");

// Fields 2, 3, 4 and 22 of /proc/{pid}/stat: the name, the state ('Z' for a process that has ended but not been
// reaped), the parent's pid, and the start time, which tells the process from a later one given the same pid.
// Nothing when no process has the pid.
struct ProcessStat {
  std::string name;
  char state = '?';
  pid_t parent = 0;
  unsigned long long start_ticks = 0;
};
std::optional<ProcessStat> read_process_stat(long long pid);

// Whether the process maps the file at `path` (as /proc/{pid}/maps names it: absolute, links resolved); nothing
// when its maps cannot be read.
std::optional<bool> maps_file(long long pid, const std::string& path);

// The name of the socket, for a process started at `start_ticks`, in `directory`.
std::string diagnostics_socket_name(const std::string& directory, long long pid, unsigned long long start_ticks);

}  // namespace umbra::launcher
