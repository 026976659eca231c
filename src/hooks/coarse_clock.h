// Publishes the TSC every period into g_hook_clock, from a native thread of its own, so the hooks read time with a
// load instead of an rdtsc (see tick_clock.h), while hooked calls are frequent. While they are rare (a focused
// pattern, an idle service) the hooks read the TSC themselves and the thread only looks at their rate once a
// window: its 1,000 wake-ups a second cost the program more than the reads (the web API with its own assembly
// hooked served 8% more requests with exact times). stop() puts the hooks back on the exact clock for good.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

namespace umbra {

// When the clock is worth its thread. Without `calls`, always.
struct CoarseClockDemand {
  std::function<uint64_t()> calls;  // hooked calls so far (any thread; called from the clock's thread)
  uint64_t coarse_from_per_s = 500000;  // coarse from this rate on; exact again below half of it
  std::chrono::milliseconds window{100};
  // Coarse from the start, before the first window has told the rate. Where hooked calls are expected to be rare (a
  // focused pattern), exact instead: a short run then never wakes the thread every period.
  bool begin_coarse = true;
};

class CoarseClock {
 public:
  CoarseClock() = default;
  ~CoarseClock() { stop(); }
  CoarseClock(const CoarseClock&) = delete;
  CoarseClock& operator=(const CoarseClock&) = delete;

  // Starts coarse (exact if the demand says so); with a demand, moves between coarse and exact at the end of each
  // window.
  void start(std::chrono::microseconds period, CoarseClockDemand demand = {});
  void stop();
  uint64_t updates() const { return updates_.load(std::memory_order_relaxed); }
  // How long the hooks have read the coarse clock, and the exact one, since start().
  std::chrono::nanoseconds coarse_time() const;
  std::chrono::nanoseconds exact_time() const;

 private:
  void run(std::chrono::microseconds period, CoarseClockDemand demand);
  void set_coarse(bool coarse, std::chrono::steady_clock::time_point now);
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> updates_{0};
  // Time spent in each state before the current one began, and when it began (ns of steady_clock).
  std::atomic<int64_t> coarse_ns_{0}, exact_ns_{0}, state_since_ns_{0};
  std::atomic<bool> coarse_{false}, running_{false};
};

}  // namespace umbra
