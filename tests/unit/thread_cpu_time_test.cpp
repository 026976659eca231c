#include "snapshot/thread_cpu_time.h"

#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace umbra {
namespace {

TEST(ThreadCpuTime, MovesWhileAThreadRunsAndStandsStillWhileItSleeps) {
  std::atomic<pid_t> tid{0};
  std::atomic<int> phase{0};
  std::thread worker([&] {
    tid = pid_t(syscall(SYS_gettid));
    volatile uint64_t spin = 0;
    while (phase.load() == 0) spin = spin + 1;
    while (phase.load() == 1) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  });
  while (tid.load() == 0) std::this_thread::yield();
  auto first = thread_cpu_ns(tid);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  auto second = thread_cpu_ns(tid);
  ASSERT_TRUE(first && second);
  EXPECT_GT(*second, *first);  // it spins, so its CPU time includes the slice still running
  phase = 1;
  std::this_thread::sleep_for(std::chrono::milliseconds(30));  // now in a 200 ms sleep
  auto asleep = thread_cpu_ns(tid);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(thread_cpu_ns(tid), asleep);
  phase = 2;
  worker.join();
  EXPECT_FALSE(thread_cpu_ns(0));
  EXPECT_FALSE(thread_cpu_ns(0x3ffffff0));  // above any pid_max: no such thread
}

}  // namespace
}  // namespace umbra
