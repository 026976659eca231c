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

int open_task_stat(pid_t tid) {
  if (tid <= 0) return -1;
  char path[48];
  std::snprintf(path, sizeof path, "/proc/self/task/%d/stat", int(tid));
  return ::open(path, O_RDONLY | O_CLOEXEC);
}

std::optional<char> read_scheduler_state(int stat_fd, pid_t tid) {
  // "tid (name) S ...": the name is at most 16 bytes, so the state is well inside the first 128.
  char stat[128];
  ssize_t n = ::pread(stat_fd, stat, sizeof stat - 1, 0);
  if (n <= 0) return std::nullopt;
  stat[n] = '\0';
  char expected[24];
  int prefix = std::snprintf(expected, sizeof expected, "%d (", int(tid));
  if (prefix <= 0 || std::strncmp(stat, expected, size_t(prefix)) != 0) return std::nullopt;  // another file
  const char* name_end = std::strrchr(stat, ')');  // the name may hold ')' itself: the last one ends it
  if (name_end == nullptr || name_end[1] != ' ' || name_end[2] == '\0') return std::nullopt;
  return name_end[2];
}

std::optional<char> thread_scheduler_state(pid_t tid) {
  int fd = open_task_stat(tid);
  if (fd < 0) return std::nullopt;
  std::optional<char> state = read_scheduler_state(fd, tid);
  ::close(fd);
  return state;
}

}  // namespace umbra
