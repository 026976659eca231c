// The coarse clock moves the hooks' time forward about once per period while it runs, and hands the hooks back
// to the exact clock when stopped.
#include <gtest/gtest.h>

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
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  uint64_t later = hook_ticks();
  EXPECT_GT(later, first);
  EXPECT_LE(later, read_ticks());
  EXPECT_GE(clock.updates(), 20u);  // 100 periods of 1 ms, with room for a loaded machine
  clock.stop();
  EXPECT_TRUE(g_hook_clock.exact.load());
  uint64_t a = hook_ticks(), b = hook_ticks();
  EXPECT_GE(b, a);
}

}  // namespace
}  // namespace umbra
