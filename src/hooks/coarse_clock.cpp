#include "hooks/coarse_clock.h"

#include <pthread.h>

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
  {
    // Woken at once rather than at its next update: the program's exit waits for this join.
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_.store(true, std::memory_order_release);
  }
  wake_.notify_one();
  thread_.join();
}

void CoarseClock::run(std::chrono::microseconds period) {
  pthread_setname_np(pthread_self(), "umbra-clock");
  // Absolute deadlines: the period does not drift with the time each update takes.
  auto next = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_.load(std::memory_order_acquire)) {
    next += period;
    if (wake_.wait_until(lock, next, [this] { return stopping_.load(std::memory_order_acquire); })) break;
    g_hook_clock.coarse_ticks.store(read_ticks(), std::memory_order_relaxed);
    updates_.fetch_add(1, std::memory_order_relaxed);
  }
}

}  // namespace umbra
