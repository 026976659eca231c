// Publishes the TSC every period into g_hook_clock, from a native thread of its own, so the hooks read time with a
// load instead of an rdtsc (see tick_clock.h). While it runs the hooks use the coarse value; stop() puts them back
// on the exact clock.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

namespace umbra {

class CoarseClock {
 public:
  CoarseClock() = default;
  ~CoarseClock() { stop(); }
  CoarseClock(const CoarseClock&) = delete;
  CoarseClock& operator=(const CoarseClock&) = delete;

  void start(std::chrono::microseconds period);
  void stop();
  uint64_t updates() const { return updates_.load(std::memory_order_relaxed); }

 private:
  void run(std::chrono::microseconds period);
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> updates_{0};
};

}  // namespace umbra
