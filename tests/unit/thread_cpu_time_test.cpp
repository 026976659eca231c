#include "snapshot/thread_cpu_time.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>

namespace umbra {
namespace {

// The scheduler state of a thread of this process ('R' running, 'S' asleep, ...), from /proc.
char thread_state(pid_t tid) {
  std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), {});
  auto name_end = stat.rfind(')');  // the name, in parentheses, may hold anything
  return name_end == std::string::npos || name_end + 2 >= stat.size() ? '?' : stat[name_end + 2];
}

// A thread that spins until stop_spinning(), then sleeps in read() (no timer, no spurious wake-up) until the end.
class SpinThenBlock {
 public:
  SpinThenBlock() {
    if (pipe(wake_) != 0) wake_[0] = wake_[1] = -1;
    worker_ = std::thread([this] {
      tid_ = pid_t(syscall(SYS_gettid));
      volatile uint64_t spin = 0;
      while (spinning_.load()) spin = spin + 1;
      char byte;
      while (read(wake_[0], &byte, 1) < 0) {
      }
    });
    while (tid_.load() == 0) std::this_thread::yield();
  }
  ~SpinThenBlock() {
    spinning_ = false;
    if (write(wake_[1], "x", 1) != 1) {
    }
    worker_.join();
    close(wake_[0]);
    close(wake_[1]);
  }
  bool piped() const { return wake_[0] >= 0; }
  pid_t tid() const { return tid_.load(); }
  void stop_spinning() { spinning_ = false; }

 private:
  int wake_[2];
  std::atomic<pid_t> tid_{0};
  std::atomic<bool> spinning_{true};
  std::thread worker_;
};

TEST(ThreadCpuTime, MovesWhileAThreadRunsAndStandsStillWhileItSleeps) {
  SpinThenBlock worker;
  ASSERT_TRUE(worker.piped());
  const pid_t tid = worker.tid();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  auto first = thread_cpu_ns(tid);
  ASSERT_TRUE(first);
  // It spins, so its CPU time grows, including the slice still running, as soon as it is scheduled.
  std::optional<uint64_t> later;
  do {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    later = thread_cpu_ns(tid);
    ASSERT_TRUE(later);
  } while (*later == *first && std::chrono::steady_clock::now() < deadline);
  EXPECT_GT(*later, *first);
  worker.stop_spinning();
  while (thread_state(tid) != 'S' && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  ASSERT_EQ(thread_state(tid), 'S');  // blocked in read()
  auto asleep = thread_cpu_ns(tid);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(thread_cpu_ns(tid), asleep);
  EXPECT_FALSE(thread_cpu_ns(0));
  EXPECT_FALSE(thread_cpu_ns(0x3ffffff0));  // above any pid_max: no such thread
}

// A thread that spins is on a CPU; once it blocks it is not, whatever its CPU time did before.
TEST(ThreadCpuTime, OnACpuWhileSpinningAndNotWhileBlocked) {
  SpinThenBlock worker;
  ASSERT_TRUE(worker.piped());
  const pid_t tid = worker.tid();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  uint64_t last = 0;
  bool on_cpu = false;
  while (!on_cpu && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    on_cpu = thread_on_cpu(tid, last);
  }
  EXPECT_TRUE(on_cpu);
  EXPECT_GT(last, 0u);
  worker.stop_spinning();
  while (thread_state(tid) != 'S' && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  ASSERT_EQ(thread_state(tid), 'S');
  EXPECT_EQ(thread_scheduler_state(tid), 'S');
  EXPECT_FALSE(thread_on_cpu(tid, last));  // it ran since the last reading, but waits now
  EXPECT_FALSE(thread_on_cpu(tid, last));  // it has not run since
  uint64_t unchanged = 7;
  EXPECT_FALSE(thread_on_cpu(0x3ffffff0, unchanged));  // no such thread
  EXPECT_EQ(unchanged, 7u);
}

// The state follows the thread's name, which may hold ") S (" itself.
TEST(ThreadCpuTime, SchedulerStateAfterAnyName) {
  char old_name[32] = {};
  pthread_getname_np(pthread_self(), old_name, sizeof old_name);
  ASSERT_EQ(pthread_setname_np(pthread_self(), "a) S (b) S"), 0);
  EXPECT_EQ(thread_scheduler_state(pid_t(syscall(SYS_gettid))), 'R');  // the thread asking runs
  pthread_setname_np(pthread_self(), old_name);
  EXPECT_FALSE(thread_scheduler_state(0x3ffffff0).has_value());
}

}  // namespace
}  // namespace umbra
