// The coarse clock moves the hooks' time forward about once per period while it runs, and hands the hooks back
// to the exact clock when stopped.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "hooks/coarse_clock.h"
#include "hooks/tick_clock.h"

namespace umbra {
namespace {

TEST(CoarseClock, PublishesTheTscEveryPeriodWhileRunning) {
  ASSERT_TRUE(g_hook_clock.exact.load());
  CoarseClock clock;
  clock.start(std::chrono::milliseconds(1));
  EXPECT_FALSE(g_hook_clock.exact.load());
  uint64_t first = hook_ticks();
  // Updates follow absolute deadlines 1 ms apart: the next 100 take about 100 ms, and little more even on a busy
  // machine; a 2.5 ms period would take 250. A thread running late catches up at once, so a few of the 100 may
  // come early: 75 ms still tells a 0.5 ms period (50) from 1 ms.
  const uint64_t base = clock.updates();
  const auto start = std::chrono::steady_clock::now();
  while (clock.updates() < base + 100 && std::chrono::steady_clock::now() - start < std::chrono::seconds(5))
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  const auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_GE(clock.updates(), base + 100);
  EXPECT_GE(elapsed, std::chrono::milliseconds(75));
  EXPECT_LT(elapsed, std::chrono::milliseconds(250));
  uint64_t later = hook_ticks();
  EXPECT_GT(later, first);
  EXPECT_LE(later, read_ticks());
  clock.stop();
  EXPECT_TRUE(g_hook_clock.exact.load());
  uint64_t a = hook_ticks(), b = hook_ticks();
  EXPECT_GE(b, a);
}

// Waits up to 5 s for `done`.
template <typename Done>
bool eventually(Done done) {
  const auto start = std::chrono::steady_clock::now();
  while (!done()) {
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(5)) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// While hooked calls are rare the hooks read the TSC and the clock's thread stops publishing (only the rate is
// looked at, once a window); when they come faster than the threshold it publishes again, every period.
TEST(CoarseClock, PublishesOnlyWhileHookedCallsAreFrequent) {
  std::atomic<uint64_t> calls{0};
  CoarseClockDemand demand;
  demand.calls = [&] { return calls.load(); };
  demand.coarse_from_per_s = 20000;
  demand.window = std::chrono::milliseconds(20);
  CoarseClock clock;
  clock.start(std::chrono::milliseconds(1), demand);
  EXPECT_FALSE(g_hook_clock.exact.load());
  ASSERT_TRUE(eventually([] { return g_hook_clock.exact.load(); }));  // no call in the first window
  uint64_t resting = clock.updates();
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  EXPECT_EQ(clock.updates(), resting);

  // 100 calls a millisecond: 100,000 a second.
  std::atomic<bool> calling{true};
  std::thread caller([&] {
    while (calling.load()) {
      calls.fetch_add(100);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  EXPECT_TRUE(eventually([] { return !g_hook_clock.exact.load(); }));
  uint64_t busy = clock.updates();
  EXPECT_TRUE(eventually([&] { return clock.updates() >= busy + 10; }));
  calling.store(false);
  caller.join();
  EXPECT_TRUE(eventually([] { return g_hook_clock.exact.load(); }));
  clock.stop();
  EXPECT_TRUE(g_hook_clock.exact.load());
  EXPECT_GT(clock.coarse_time().count(), 0);
  EXPECT_GE(clock.exact_time(), std::chrono::milliseconds(60));
}

// A demand that begins exact (a focused pattern): no update at all until a window has seen frequent calls.
TEST(CoarseClock, BeginsExactWhenTheDemandSaysCallsAreRare) {
  std::atomic<uint64_t> calls{0};
  CoarseClockDemand demand;
  demand.calls = [&] { return calls.load(); };
  demand.coarse_from_per_s = 20000;
  demand.window = std::chrono::milliseconds(20);
  demand.begin_coarse = false;
  CoarseClock clock;
  clock.start(std::chrono::milliseconds(1), demand);
  EXPECT_TRUE(g_hook_clock.exact.load());
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(clock.updates(), 0u);
  calls.store(1000000);  // far past the threshold in the window now open
  EXPECT_TRUE(eventually([] { return !g_hook_clock.exact.load(); }));
  EXPECT_TRUE(eventually([&] { return clock.updates() >= 5; }));
  clock.stop();
  EXPECT_TRUE(g_hook_clock.exact.load());
}

}  // namespace
}  // namespace umbra
