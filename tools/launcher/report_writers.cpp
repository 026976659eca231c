#include "report_writers.h"

#include <dirent.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

#include "attach_target.h"
#include "profiler/report_writer_process.h"

namespace umbra::launcher {
namespace {

struct ProcessEntry {
  pid_t parent = 0;
  bool writer = false;  // a live report writer
};

// Every process's parent, and whether it is a live report writer.
std::unordered_map<pid_t, ProcessEntry> processes() {
  std::unordered_map<pid_t, ProcessEntry> all;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return all;
  while (dirent* entry = readdir(proc)) {
    char* end = nullptr;
    long pid = std::strtol(entry->d_name, &end, 10);
    if (pid <= 0 || *end != '\0') continue;
    if (std::optional<ProcessStat> stat = read_process_stat(pid))
      all[pid_t(pid)] = {stat->parent, stat->name == kReportWriterName && stat->state != 'Z' && stat->state != 'X'};
  }
  closedir(proc);
  return all;
}

std::vector<pid_t> writers_below(pid_t root) {
  std::unordered_map<pid_t, ProcessEntry> all = processes();
  std::vector<pid_t> writers;
  for (const auto& [pid, entry] : all) {
    if (!entry.writer) continue;
    pid_t up = entry.parent;
    for (int steps = 0; up > 1 && up != root && steps < 256; ++steps) {
      auto it = all.find(up);
      up = it == all.end() ? 0 : it->second.parent;
    }
    if (up == root) writers.push_back(pid);
  }
  return writers;
}

void say_if_killed(pid_t pid, int status, const std::set<pid_t>& writers) {
  if (writers.count(pid) && WIFSIGNALED(status))
    std::fprintf(stderr, "umbra: a report writer (pid %d) was ended by signal %d: a descendant's report is missing\n",
                 int(pid), WTERMSIG(status));
}

}  // namespace

void adopt_orphans() { prctl(PR_SET_CHILD_SUBREAPER, 1); }

pid_t wait_for_program(pid_t program, int& status) {
  for (;;) {
    int ended_status = 0;
    pid_t ended = waitpid(-1, &ended_status, 0);
    if (ended == program) {
      status = ended_status;
      return program;
    }
    if (ended < 0 && errno != EINTR) return -1;
  }
}

void wait_for_report_writers(int (*interrupted)()) {
  std::set<pid_t> seen;
  for (int scans = 0;; ++scans) {
    int status = 0;
    pid_t ended;
    while ((ended = waitpid(-1, &status, WNOHANG)) > 0) say_if_killed(ended, status, seen);
    // No child left: nothing of the program's tree lives on, so no writer either (the common case, and no walk of
    // /proc).
    if (ended < 0 && errno == ECHILD) return;
    std::vector<pid_t> writers = writers_below(getpid());
    if (writers.empty()) return;
    seen.insert(writers.begin(), writers.end());
    if (int signo = interrupted()) {
      std::fprintf(stderr, "umbra: signal %d: not waiting for %zu report writer(s); their reports are written after "
                   "this ends\n", signo, writers.size());
      return;
    }
    // Each scan reads every process's stat: often while a writer usually ends (its first 100 ms), then less often.
    usleep(scans < 10 ? 10000 : 50000);
  }
}

}  // namespace umbra::launcher
