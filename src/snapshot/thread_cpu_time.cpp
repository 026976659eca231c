#include "snapshot/thread_cpu_time.h"

#include <time.h>

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

}  // namespace umbra
