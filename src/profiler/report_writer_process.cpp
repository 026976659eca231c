#include "profiler/report_writer_process.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "snapshot/thread_cpu_time.h"
#include "util/log.h"

namespace umbra {
namespace {

// Long enough for the largest trees met (a test suite's: about a minute), short enough that a copy that cannot
// finish never keeps the launcher waiting for good.
constexpr unsigned kWriterSecondsAtMost = 600;
// Below the program's processes, which the copy would otherwise hold back.
constexpr int kWriterNice = 10;
// How long the locks may stay busy (a callback naming a method) before the report is written in the process.
constexpr int kHoldAttempts = 100;

// The original's handlers belong to the runtime, whose threads the copy does not have. An interrupt from the
// terminal (the build was stopped) still lets the report be written; a termination ends it.
void reset_signals() {
  struct sigaction action = {};
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  for (int signo = 1; signo < NSIG; ++signo)
    if (signo != SIGKILL && signo != SIGSTOP) sigaction(signo, &action, nullptr);
  for (int signo : {SIGINT, SIGQUIT, SIGHUP, SIGPIPE}) signal(signo, SIG_IGN);
  sigset_t none;
  sigemptyset(&none);
  pthread_sigmask(SIG_SETMASK, &none, nullptr);
}

// Every descriptor from `first` up closed but `keep`, by /proc/self/fd where close_range is missing (before Linux
// 5.9): the copy must not hold the program's pipes, sockets or locked files open while it writes.
void close_from(int first, int keep) {
  bool closed = keep < first ? close_range(unsigned(first), ~0u, 0) == 0
                             : (keep == first || close_range(unsigned(first), unsigned(keep) - 1, 0) == 0) &&
                                   close_range(unsigned(keep) + 1, ~0u, 0) == 0;
  if (closed) return;
  DIR* fds = opendir("/proc/self/fd");
  if (fds == nullptr) return;
  std::vector<int> open_fds;
  while (dirent* entry = readdir(fds)) {
    int fd = std::atoi(entry->d_name);
    if (fd >= first && fd != keep && fd != dirfd(fds) && entry->d_name[0] != '.') open_fds.push_back(fd);
  }
  closedir(fds);
  for (int fd : open_fds) close(fd);
}

// The standard streams to /dev/null (closed where it cannot be opened: the program's parent may be reading them),
// every other descriptor closed but `keep`.
void keep_only(int keep) {
  int null = open("/dev/null", O_RDWR | O_CLOEXEC);
  for (int fd : {0, 1, 2})
    if (fd != keep) null >= 0 ? void(dup2(null, fd)) : void(close(fd));
  close_from(3, keep);
}

}  // namespace

bool launcher_waits_for(pid_t launched) {
  char path[32];
  std::snprintf(path, sizeof path, "/proc/%d/stat", int(launched));
  int stat = open(path, O_RDONLY | O_CLOEXEC);
  if (stat < 0) return false;
  std::optional<char> state = read_scheduler_state(stat, launched);
  close(stat);
  return state && *state != 'Z' && *state != 'X';  // a zombie has ended
}

ReportWriter copy_for_report(const std::function<bool()>& hold, const std::function<void()>& release) {
  bool held = hold();
  for (int attempt = 1; !held && attempt < kHoldAttempts; ++attempt) {
    usleep(1000);
    held = hold();
  }
  if (!held) {
    log::info("report: the profiler's locks stayed busy; the report is written before the process ends");
    return ReportWriter::kHere;
  }
  int log_fd = log::file_descriptor();
  pid_t pid = fork();
  release();
  if (pid < 0) return ReportWriter::kHere;
  if (pid > 0) return ReportWriter::kElsewhere;
  // Named only once it holds none of the program's descriptors and ignores the hang-up an orphaned process group's
  // stopped members get: a writer found by its name and stopped (the launcher ending meanwhile) neither keeps a reader
  // of the program's pipes waiting nor dies when let go on.
  reset_signals();
  keep_only(log_fd);
  prctl(PR_SET_NAME, kReportWriterName);
  // The program's parent goes on while the copy works: it should not wait for CPUs the copy holds. The threads the
  // copy starts (report helpers) inherit this.
  setpriority(PRIO_PROCESS, 0, kWriterNice);
  log::restart_on(log_fd);
  alarm(kWriterSecondsAtMost);
  log::always("the report is written by process " + std::to_string(getpid()) + " (" + kReportWriterName +
              "), a copy of this one made as it ended, so that the program's parent need not wait for it");
  return ReportWriter::kInWriter;
}

void end_report_writer() { _exit(0); }

}  // namespace umbra
