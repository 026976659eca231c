#include "attach_target.h"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <vector>

#include "report/display_text.h"

namespace umbra::launcher {
namespace {

// A /proc file whole; nothing (errno set) if it cannot be read.
std::optional<std::string> read_proc(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string permission_denied(long long pid, const char* what = "attach") {
  return "permission denied: pid " + std::to_string(pid) + " belongs to another user; " + what +
         " as that user (or as root)";
}

// NAME=VALUE entries of a NUL-separated environment.
std::optional<std::string> variable(const std::string& environ, const std::string& name) {
  size_t start = 0;
  while (start < environ.size()) {
    size_t end = environ.find('\0', start);
    if (end == std::string::npos) end = environ.size();
    std::string_view entry(environ.data() + start, end - start);
    if (entry.size() > name.size() && entry.compare(0, name.size(), name) == 0 && entry[name.size()] == '=')
      return std::string(entry.substr(name.size() + 1));
    start = end + 1;
  }
  return std::nullopt;
}

// Where the process's runtime makes its diagnostics socket: its own TMPDIR, without trailing slashes, or /tmp.
std::string tmp_directory_of(const std::string& environ) {
  std::string directory = variable(environ, "TMPDIR").value_or("");
  while (directory.size() > 1 && directory.back() == '/') directory.pop_back();
  return directory.empty() ? "/tmp" : directory;
}

// The variable, with its value, that turns the diagnostics socket off, if the process has one.
std::string diagnostics_turned_off(const std::string& environ) {
  for (const char* prefix : {"DOTNET_", "COMPlus_"})
    for (const char* name : {"EnableDiagnostics", "EnableDiagnostics_IPC"}) {
      std::string full = std::string(prefix) + name;
      if (variable(environ, full) == "0") return full + "=0";
    }
  return "";
}

bool maps_show_dotnet(const std::string& maps) {
  for (const char* file : {"/libcoreclr.so", "/libclrjit.so", "/System.Private.CoreLib.dll"})
    if (maps.find(file) != std::string::npos) return true;
  return false;
}

// The newest socket of `pid` in `directory` that `owner` made: another process of the same pid may have left an
// older one, and another user's is never the program's.
std::string newest_socket(const std::string& directory, long long pid, uid_t owner) {
  std::string prefix = "dotnet-diagnostic-" + std::to_string(pid) + "-";
  std::string best;
  struct timespec best_time {};
  DIR* dir = opendir(directory.c_str());
  if (dir == nullptr) return "";
  while (dirent* entry = readdir(dir)) {
    std::string name = entry->d_name;
    if (name.rfind(prefix, 0) != 0 || name.size() < 7 || name.compare(name.size() - 7, 7, "-socket") != 0) continue;
    struct stat st {};
    std::string path = directory + "/" + name;
    if (lstat(path.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode) || st.st_uid != owner) continue;
    if (best.empty() || st.st_mtim.tv_sec > best_time.tv_sec ||
        (st.st_mtim.tv_sec == best_time.tv_sec && st.st_mtim.tv_nsec > best_time.tv_nsec)) {
      best = path;
      best_time = st.st_mtim;
    }
  }
  closedir(dir);
  return best;
}

void read_owner(const std::string& status, AttachTarget& target) {
  auto second_field = [&](const char* key) -> unsigned long {
    size_t at = status.find(key);
    if (at == std::string::npos) return 0;
    std::istringstream fields(status.substr(at + std::strlen(key)));
    unsigned long real = 0, effective = 0;
    fields >> real >> effective;
    return effective;
  };
  target.uid = uid_t(second_field("\nUid:"));
  target.gid = gid_t(second_field("\nGid:"));
}

// The "Groups:" line of /proc/PID/status.
std::vector<gid_t> supplementary_groups(const std::string& status) {
  std::vector<gid_t> groups;
  size_t at = status.find("\nGroups:");
  if (at == std::string::npos) return groups;
  std::istringstream fields(status.substr(at + 8, status.find('\n', at + 1) - at - 8));
  unsigned long group;
  while (fields >> group) groups.push_back(gid_t(group));
  return groups;
}

}  // namespace

std::optional<ProcessStat> read_process_stat(long long pid) {
  std::optional<std::string> stat = read_proc("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return std::nullopt;
  size_t open_paren = stat->find('(');
  size_t paren = stat->rfind(')');  // the name may hold spaces and parentheses
  if (open_paren == std::string::npos || paren == std::string::npos || paren < open_paren || paren + 2 >= stat->size())
    return std::nullopt;
  ProcessStat result;
  result.name = stat->substr(open_paren + 1, paren - open_paren - 1);
  std::istringstream fields(stat->substr(paren + 2));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {  // fields after the name start at 3
    if (i == 3) result.state = field[0];
    if (i == 4) result.parent = pid_t(std::strtol(field.c_str(), nullptr, 10));
    if (i == 22) {
      result.start_ticks = std::strtoull(field.c_str(), nullptr, 10);
      return result;
    }
  }
  return std::nullopt;
}

std::optional<bool> maps_file(long long pid, const std::string& path) {
  std::optional<std::string> maps = read_proc("/proc/" + std::to_string(pid) + "/maps");
  if (!maps || maps->empty()) return std::nullopt;
  // The path ends its line: a mapping of a file named longer does not count.
  for (size_t at = maps->find(path); at != std::string::npos; at = maps->find(path, at + 1)) {
    size_t end = at + path.size();
    if (at > 0 && (*maps)[at - 1] == ' ' && (end == maps->size() || (*maps)[end] == '\n')) return true;
  }
  return false;
}

std::string diagnostics_socket_name(const std::string& directory, long long pid, unsigned long long start_ticks) {
  return directory + "/dotnet-diagnostic-" + std::to_string(pid) + "-" + std::to_string(start_ticks) + "-socket";
}

ProcessBasics process_basics(long long pid, const char* verb) {
  ProcessBasics basics;
  std::string id = std::to_string(pid);
  if (kill(pid_t(pid), 0) != 0) {
    basics.problem = errno == EPERM ? permission_denied(pid, verb) : "no process has pid " + id;
    return basics;
  }
  std::string proc = "/proc/" + id;
  std::string comm = read_proc(proc + "/comm").value_or("?");
  if (!comm.empty() && comm.back() == '\n') comm.pop_back();
  basics.name = display_text(comm);
  std::optional<std::string> environ = read_proc(proc + "/environ");
  std::optional<std::string> status = read_proc(proc + "/status");
  if (!environ || !status) {
    basics.problem = errno == EACCES || errno == EPERM ? permission_denied(pid, verb)
                                                       : "cannot read " + proc + ": " + std::strerror(errno);
    return basics;
  }
  AttachTarget owner;
  read_owner(*status, owner);
  basics.uid = owner.uid;
  basics.gid = owner.gid;
  basics.groups = supplementary_groups(*status);
  basics.tmp_directory = tmp_directory_of(*environ);
  return basics;
}

AttachTarget find_attach_target(long long pid) {
  AttachTarget target;
  std::string id = std::to_string(pid);
  if (kill(pid_t(pid), 0) != 0) {
    target.problem = errno == EPERM ? permission_denied(pid) : "no process has pid " + id;
    return target;
  }
  std::string proc = "/proc/" + id;
  std::string comm = read_proc(proc + "/comm").value_or("?");
  if (!comm.empty() && comm.back() == '\n') comm.pop_back();
  target.name = display_text(comm);
  std::string who = "pid " + id + " (" + target.name + ")";
  std::optional<std::string> environ = read_proc(proc + "/environ");
  std::optional<std::string> maps = read_proc(proc + "/maps");
  std::optional<std::string> status = read_proc(proc + "/status");
  if (!environ || !maps || !status) {
    target.problem = errno == EACCES || errno == EPERM ? permission_denied(pid)
                                                       : "cannot read " + proc + ": " + std::strerror(errno);
    return target;
  }
  read_owner(*status, target);
  const std::string directory = tmp_directory_of(*environ);
  if (std::optional<ProcessStat> process = read_process_stat(pid)) {
    std::string exact = diagnostics_socket_name(directory, pid, process->start_ticks);
    struct stat st {};
    if (::lstat(exact.c_str(), &st) == 0 && st.st_uid != target.uid) {
      // Made by someone else before the runtime could: the runtime then runs without its socket.
      target.problem = who + " cannot be attached to: " + exact + " belongs to uid " + std::to_string(st.st_uid) +
                       ", not to the program's user (uid " + std::to_string(target.uid) +
                       "), so the program's runtime could not make its socket there";
      return target;
    }
    if (::lstat(exact.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) target.socket_path = exact;
  }
  // A socket under another start time was left by an earlier process of this pid unless the runtime is here.
  bool runs_dotnet = maps_show_dotnet(*maps);
  if (target.socket_path.empty() && runs_dotnet) target.socket_path = newest_socket(directory, pid, target.uid);
  if (!target.socket_path.empty()) return target;
  if (!runs_dotnet) {
    target.problem = who + " is not a .NET program: no .NET runtime is loaded in it";
  } else if (std::string off = diagnostics_turned_off(*environ); !off.empty()) {
    target.problem = who + " runs with its diagnostics socket turned off (" + off +
                     " in its environment); attaching needs it: restart the program without " + off;
  } else {
    target.problem = who + " runs .NET but has no diagnostics socket in " + directory + " (dotnet-diagnostic-" +
                     id + "-*-socket); was it deleted, or is the program in another file system namespace?";
  }
  return target;
}

}  // namespace umbra::launcher
