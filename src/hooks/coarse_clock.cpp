#include "hooks/coarse_clock.h"

#include <pthread.h>

#include "hooks/tick_clock.h"

namespace umbra {
namespace {

int64_t ns_of(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

bool begins_coarse(const CoarseClockDemand& demand) { return !demand.calls || demand.begin_coarse; }

}  // namespace

void CoarseClock::start(std::chrono::microseconds period, CoarseClockDemand demand) {
  if (thread_.joinable()) return;
  state_since_ns_.store(ns_of(std::chrono::steady_clock::now()), std::memory_order_relaxed);
  running_.store(true, std::memory_order_relaxed);
  set_coarse(begins_coarse(demand), std::chrono::steady_clock::now());
  stopping_.store(false, std::memory_order_relaxed);
  thread_ = std::thread([this, period, demand = std::move(demand)] { run(period, demand); });
}

void CoarseClock::stop() {
  if (!thread_.joinable()) return;
  {
    // Woken at once rather than at its next update: the program's exit waits for this join.
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_.store(true, std::memory_order_release);
  }
  wake_.notify_one();
  thread_.join();
  set_coarse(false, std::chrono::steady_clock::now());
  running_.store(false, std::memory_order_relaxed);
}

// One caller at a time: start(), then the clock's thread, then stop() once it has joined.
void CoarseClock::set_coarse(bool coarse, std::chrono::steady_clock::time_point now) {
  int64_t t = ns_of(now);
  int64_t spent = t - state_since_ns_.exchange(t, std::memory_order_relaxed);
  (coarse_.exchange(coarse, std::memory_order_relaxed) ? coarse_ns_ : exact_ns_).fetch_add(spent);
  // A value published before the switch: a frame opened on the exact clock closes on one at most a period old.
  if (coarse) g_hook_clock.coarse_ticks.store(read_ticks(), std::memory_order_relaxed);
  g_hook_clock.exact.store(!coarse, std::memory_order_release);
}

std::chrono::nanoseconds CoarseClock::coarse_time() const {
  int64_t open = coarse_.load() ? ns_of(std::chrono::steady_clock::now()) - state_since_ns_.load() : 0;
  return std::chrono::nanoseconds(coarse_ns_.load() + open);
}

std::chrono::nanoseconds CoarseClock::exact_time() const {
  bool open_exact = running_.load() && !coarse_.load();
  int64_t open = open_exact ? ns_of(std::chrono::steady_clock::now()) - state_since_ns_.load() : 0;
  return std::chrono::nanoseconds(exact_ns_.load() + open);
}

void CoarseClock::run(std::chrono::microseconds period, CoarseClockDemand demand) {
  pthread_setname_np(pthread_self(), "umbra-clock");
  auto stopping = [this] { return stopping_.load(std::memory_order_acquire); };
  // Absolute deadlines: the period does not drift with the time each update takes.
  auto next = std::chrono::steady_clock::now();
  auto window_end = next + demand.window;
  uint64_t calls_before = demand.calls ? demand.calls() : 0;
  bool coarse = begins_coarse(demand);
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping()) {
    if (coarse) {
      next += period;
      if (wake_.wait_until(lock, next, stopping)) break;
      g_hook_clock.coarse_ticks.store(read_ticks(), std::memory_order_relaxed);
      updates_.fetch_add(1, std::memory_order_relaxed);
    } else if (wake_.wait_until(lock, window_end, stopping)) {
      break;
    }
    auto now = std::chrono::steady_clock::now();
    if (!demand.calls || now < window_end) continue;
    uint64_t calls = demand.calls();
    double seconds = std::chrono::duration<double>(now - (window_end - demand.window)).count();
    double per_s = double(calls - calls_before) / seconds;
    calls_before = calls;
    window_end = now + demand.window;
    bool want = coarse ? per_s >= double(demand.coarse_from_per_s) / 2 : per_s >= double(demand.coarse_from_per_s);
    if (want == coarse) continue;
    coarse = want;
    set_coarse(coarse, now);
    next = now;
  }
}

}  // namespace umbra
