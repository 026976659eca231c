#include "snapshot/thread_cpu_time.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

namespace umbra {
namespace {

// The kernel's encoding of a per-thread CPU clock (include/linux/posix-timers.h): glibc builds the same id in
// pthread_getcpuclockid, which needs a pthread_t the sampler does not have for the program's threads.
constexpr clockid_t kPerThread = 4, kScheduler = 2;

clockid_t thread_cpu_clock(pid_t tid) { return clockid_t((~unsigned(tid)) << 3) | kPerThread | kScheduler; }

std::optional<uint64_t> clock_ns(clockid_t clock) {
  timespec ts{};
  if (clock_gettime(clock, &ts) != 0) return std::nullopt;
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

}  // namespace

std::optional<uint64_t> thread_cpu_ns(pid_t tid) {
  if (tid <= 0) return std::nullopt;
  return clock_ns(thread_cpu_clock(tid));
}

uint64_t current_thread_cpu_ns() { return clock_ns(CLOCK_THREAD_CPUTIME_ID).value_or(0); }

std::optional<char> thread_scheduler_state(pid_t tid) {
  if (tid <= 0) return std::nullopt;
  char path[48];
  std::snprintf(path, sizeof path, "/proc/self/task/%d/stat", int(tid));
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  // "tid (name) S ...": the name is at most 16 bytes, so the state is well inside the first 128.
  char stat[128];
  ssize_t n = ::read(fd, stat, sizeof stat - 1);
  ::close(fd);
  if (n <= 0) return std::nullopt;
  stat[n] = '\0';
  const char* name_end = std::strrchr(stat, ')');  // the name may hold ')' itself: the last one ends it
  if (name_end == nullptr || name_end[1] != ' ' || name_end[2] == '\0') return std::nullopt;
  return name_end[2];
}

bool thread_on_cpu(pid_t tid, uint64_t last_cpu_ns, uint64_t now_cpu_ns) {
  if (now_cpu_ns == last_cpu_ns) return false;
  std::optional<char> state = thread_scheduler_state(tid);
  return state ? *state == 'R' : true;
}

bool thread_on_cpu(pid_t tid, uint64_t& last_cpu_ns) {
  std::optional<uint64_t> now = thread_cpu_ns(tid);
  if (!now) return false;
  uint64_t last = last_cpu_ns;
  last_cpu_ns = *now;
  return thread_on_cpu(tid, last, *now);
}

}  // namespace umbra
