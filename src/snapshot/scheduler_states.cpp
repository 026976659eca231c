#include "snapshot/scheduler_states.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "snapshot/thread_cpu_time.h"

namespace umbra {

SchedulerStates::~SchedulerStates() {
  for (Kept& k : kept_) let_go(k);
}

// A program may close a descriptor it does not own and reuse the number: the file is closed only while it is still
// the one opened here, so that a descriptor of the program's is never closed under it.
void SchedulerStates::let_go(Kept& k) {
  struct stat now{};
  if (k.fd >= 0 && ::fstat(k.fd, &now) == 0 && now.st_dev == k.dev && now.st_ino == k.ino) ::close(k.fd);
  k = Kept{};
}

std::optional<char> SchedulerStates::state(pid_t tid) {
  if (tid <= 0) return std::nullopt;
  Kept& k = kept_[size_t(tid) % kKept];
  if (k.tid == tid && k.fd >= 0) {
    if (auto s = read_scheduler_state(k.fd, tid)) return s;
    // The thread the file was opened for has ended; the id may belong to a new thread now.
  }
  let_go(k);
  int opened_fd = open_task_stat(tid);
  if (opened_fd < 0) return std::nullopt;
  ++files_opened_;
  int fd = ::fcntl(opened_fd, F_DUPFD_CLOEXEC, kLowestKept);
  struct stat opened{};
  if (fd < 0 || ::fstat(fd, &opened) != 0) {  // no number that high: read what was opened, keep nothing
    if (fd >= 0) ::close(fd);
    std::optional<char> s = read_scheduler_state(opened_fd, tid);
    ::close(opened_fd);
    return s;
  }
  ::close(opened_fd);
  k = Kept{tid, fd, opened.st_dev, opened.st_ino};
  return read_scheduler_state(fd, tid);
}

bool SchedulerStates::on_cpu(pid_t tid, uint64_t last_cpu_ns, uint64_t now_cpu_ns) {
  if (now_cpu_ns == last_cpu_ns) return false;
  std::optional<char> s = state(tid);
  return s ? *s == 'R' : true;
}

bool SchedulerStates::on_cpu(pid_t tid, uint64_t& last_cpu_ns) {
  std::optional<uint64_t> now = thread_cpu_ns(tid);
  if (!now) return false;
  uint64_t last = last_cpu_ns;
  last_cpu_ns = *now;
  return on_cpu(tid, last, *now);
}

size_t SchedulerStates::open_files() const {
  size_t n = 0;
  for (const Kept& k : kept_) n += k.fd >= 0;
  return n;
}

}  // namespace umbra
