#include "snapshot/scheduler_states.h"

#include <unistd.h>

#include "snapshot/thread_cpu_time.h"

namespace umbra {

SchedulerStates::~SchedulerStates() {
  for (Kept& k : kept_)
    if (k.fd >= 0) ::close(k.fd);
}

std::optional<char> SchedulerStates::state(pid_t tid) {
  if (tid <= 0) return std::nullopt;
  Kept& k = kept_[size_t(tid) % kKept];
  if (k.tid == tid && k.fd >= 0) {
    if (auto s = read_scheduler_state(k.fd)) return s;
    // The thread the file was opened for has ended; the id may belong to a new thread now.
  }
  if (k.fd >= 0) ::close(k.fd);
  k.tid = tid;
  k.fd = open_task_stat(tid);
  if (k.fd < 0) return std::nullopt;
  ++files_opened_;
  return read_scheduler_state(k.fd);
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
