#include "snapshot/thread_cpu_time.h"

#include <time.h>

namespace umbra {
namespace {

// The kernel's encoding of a per-thread CPU clock (include/linux/posix-timers.h): glibc builds the same id in
// pthread_getcpuclockid, which needs a pthread_t the sampler does not have for the program's threads.
constexpr clockid_t kPerThread = 4, kScheduler = 2;

clockid_t thread_cpu_clock(pid_t tid) { return clockid_t((~unsigned(tid)) << 3) | kPerThread | kScheduler; }

}  // namespace

std::optional<uint64_t> thread_cpu_ns(pid_t tid) {
  timespec ts{};
  if (tid <= 0 || clock_gettime(thread_cpu_clock(tid), &ts) != 0) return std::nullopt;
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

uint64_t current_thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

}  // namespace umbra
