#include "hooks/coarse_clock.h"

#include <pthread.h>
#include <time.h>

#include "hooks/tick_clock.h"

namespace umbra {

void CoarseClock::start(std::chrono::microseconds period) {
  if (thread_.joinable()) return;
  g_hook_clock.coarse_ticks.store(read_ticks(), std::memory_order_relaxed);
  g_hook_clock.exact.store(false, std::memory_order_release);
  stopping_.store(false, std::memory_order_relaxed);
  thread_ = std::thread([this, period] { run(period); });
}

void CoarseClock::stop() {
  if (!thread_.joinable()) return;
  g_hook_clock.exact.store(true, std::memory_order_release);
  stopping_.store(true, std::memory_order_release);
  thread_.join();
}

void CoarseClock::run(std::chrono::microseconds period) {
  pthread_setname_np(pthread_self(), "umbra-clock");
  timespec next;
  clock_gettime(CLOCK_MONOTONIC, &next);
  const long step_ns = long(period.count()) * 1000;
  while (!stopping_.load(std::memory_order_acquire)) {
    // Absolute deadlines: the period does not drift with the time each update takes.
    next.tv_nsec += step_ns;
    while (next.tv_nsec >= 1000000000) {
      next.tv_nsec -= 1000000000;
      ++next.tv_sec;
    }
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, nullptr) != 0) {
    }
    g_hook_clock.coarse_ticks.store(read_ticks(), std::memory_order_relaxed);
    updates_.fetch_add(1, std::memory_order_relaxed);
  }
}

}  // namespace umbra
