// A signal handler that interrupts poll or nanosleep makes them fail with EINTR; restart_call_failed_by_handler
// puts the call back, so that the program sees its call complete.
#include "snapshot/interrupted_syscall.h"

#include <gtest/gtest.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <thread>

#include "snapshot/code_ranges.h"

namespace umbra {
namespace {

std::atomic<bool> g_restart{false};
std::atomic<int> g_handled{0};

void on_signal(int, siginfo_t*, void* ucontext) {
  if (g_restart.load()) restart_call_failed_by_handler(ucontext);
  g_handled.fetch_add(1);
}

struct Outcome {
  int result;
  int error;
};

// Runs `call` on a thread that is signalled three times while it waits; returns what the call returned.
template <typename Call>
Outcome interrupted(bool restart, Call call) {
  process_code_ranges().refresh();  // the handler reads libc's code through the table
  g_restart = restart;
  g_handled = 0;
  struct sigaction action {}, previous{};
  action.sa_sigaction = on_signal;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGUSR2, &action, &previous);
  Outcome outcome{};
  std::atomic<bool> done{false};
  std::thread waiter([&] {
    outcome.result = call();
    outcome.error = errno;
    done = true;
  });
  for (int i = 0; i < 3 && !done; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    if (!done) pthread_kill(waiter.native_handle(), SIGUSR2);
  }
  waiter.join();
  sigaction(SIGUSR2, &previous, nullptr);
  return outcome;
}

TEST(InterruptedSyscall, PollAndNanosleepFailWithEintrUnlessRestarted) {
  auto poll_for_a_while = [] { return poll(nullptr, 0, 300); };
  Outcome failed = interrupted(false, poll_for_a_while);
  EXPECT_EQ(failed.result, -1);
  EXPECT_EQ(failed.error, EINTR);
  Outcome restarted = interrupted(true, poll_for_a_while);
  EXPECT_EQ(restarted.result, 0);  // timed out, as if never interrupted
  EXPECT_GE(g_handled.load(), 1);

  timespec remaining{};
  auto sleep_for_a_while = [&] {
    timespec request{0, 300'000'000};
    return nanosleep(&request, &remaining);
  };
  EXPECT_EQ(interrupted(false, sleep_for_a_while).error, EINTR);
  EXPECT_EQ(interrupted(true, sleep_for_a_while).result, 0);
}

TEST(InterruptedSyscall, OnlyCallsAHandlerFailsAreListed) {
  EXPECT_TRUE(fails_with_eintr_after_a_handler(SYS_poll));
  EXPECT_TRUE(fails_with_eintr_after_a_handler(SYS_epoll_wait));
  EXPECT_TRUE(fails_with_eintr_after_a_handler(SYS_clock_nanosleep));
  EXPECT_FALSE(fails_with_eintr_after_a_handler(SYS_read));   // restarted by SA_RESTART
  EXPECT_FALSE(fails_with_eintr_after_a_handler(SYS_futex));  // likewise
  EXPECT_FALSE(fails_with_eintr_after_a_handler(-1));
}

std::atomic<int> g_in_call{-1};
std::atomic<uint32_t> g_released{0};  // a futex word: the futex waiter below waits until it is set

void on_signal_tell_waiting(int, siginfo_t*, void* ucontext) {
  g_in_call.store(interrupted_in_a_system_call(ucontext) ? 1 : 0);
  restart_call_failed_by_handler(ucontext);
}

// Signals a thread running `work` once it is under way; whether the handler found it waiting in a system call.
template <typename Work>
bool found_in_a_system_call(Work work) {
  process_code_ranges().refresh();
  g_in_call = -1;
  g_released = 0;
  struct sigaction action {}, previous{};
  action.sa_sigaction = on_signal_tell_waiting;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGUSR2, &action, &previous);
  std::atomic<bool> stop{false};
  std::thread worker([&] { work(stop); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  pthread_kill(worker.native_handle(), SIGUSR2);
  while (g_in_call.load() < 0) std::this_thread::yield();
  stop = true;
  g_released = 1;
  syscall(SYS_futex, &g_released, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
  worker.join();
  sigaction(SIGUSR2, &previous, nullptr);
  return g_in_call.load() == 1;
}

// The sampler's signal tells a waiting thread from a running one at the stack's own instant: a call the handler
// fails with EINTR (poll), one the kernel makes again (a futex wait without a timeout, under SA_RESTART), and a busy
// loop.
TEST(InterruptedSyscall, TellsAThreadWaitingInACallFromARunningOne) {
#if defined(__SANITIZE_THREAD__)
  // It delivers a signal only at a call it intercepts (never in the busy loop) and runs the handler from its own
  // code, with a context that is not the interrupted one.
  GTEST_SKIP() << "ThreadSanitizer runs the handler later, from its own code";
#endif
  EXPECT_TRUE(found_in_a_system_call([](std::atomic<bool>&) { poll(nullptr, 0, 200); }));
  EXPECT_TRUE(found_in_a_system_call([](std::atomic<bool>&) {
    while (g_released.load() == 0) syscall(SYS_futex, &g_released, FUTEX_WAIT_PRIVATE, 0, nullptr, nullptr, 0);
  }));
  EXPECT_FALSE(found_in_a_system_call([](std::atomic<bool>& stop) {
    volatile uint64_t spins = 0;
    while (!stop.load(std::memory_order_relaxed)) spins = spins + 1;
  }));
}

}  // namespace
}  // namespace umbra
