// The native-top capture signal under hostile conditions: values forged by another sender, and an unwinder that
// faults on a corrupt stack. Either must leave the program running.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <thread>

#include "snapshot/native_capture.h"

extern "C" void umbra_test_spin_with_bad_unwind_info(const volatile int* stop, void* unreadable);

namespace umbra {
namespace {

bool wait_until(const std::function<bool()>& condition) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  return true;
}

// Queues the capture signal at this very thread with `value`, claiming to come from this process.
void forge_at_self(int signo, void* value) {
  siginfo_t info;
  std::memset(&info, 0, sizeof info);
  info.si_signo = signo;
  info.si_code = SI_QUEUE;
  info.si_pid = getpid();
  info.si_uid = getuid();
  info.si_value.sival_ptr = value;
  ASSERT_EQ(syscall(SYS_rt_tgsigqueueinfo, getpid(), pid_t(syscall(SYS_gettid)), signo, &info), 0);
}

TEST(NativeCaptureSignal, ForgedValuesAreIgnored) {
  int signo = install_native_capture_handler();
  ASSERT_NE(signo, 0);
  NativeCapture capture;  // a real capture in the table, requested of nobody
  // A value that was a pointer in an earlier design, unmapped memory, bits that look like a slot, and zero.
  for (uintptr_t value : {uintptr_t(0x10), uintptr_t(0xdead0000beef), uintptr_t(capture.slot), uintptr_t(0),
                          reinterpret_cast<uintptr_t>(&capture)})
    forge_at_self(signo, reinterpret_cast<void*>(value));
  EXPECT_EQ(capture.state.load(), NativeCapture::kIdle);
  EXPECT_EQ(capture.count, 0u);
}

TEST(NativeCaptureSignal, ACaptureRequestedOfAnotherThreadIsNotAnsweredHere) {
  ASSERT_NE(install_native_capture_handler(), 0);
  std::atomic<bool> stop{false};
  std::atomic<pid_t> tid{0};
  sigset_t all;
  sigfillset(&all);
  std::thread other([&] {
    pthread_sigmask(SIG_BLOCK, &all, nullptr);  // it never takes the signal: the request stays pending
    tid = pid_t(syscall(SYS_gettid));
    while (!stop) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  ASSERT_TRUE(wait_until([&] { return tid.load() != 0; }));
  NativeCapture capture;
  ASSERT_TRUE(request_native_capture(tid, capture));
  // The same request delivered to this thread instead (as a forger copying the value would) is not answered.
  EXPECT_EQ(capture.target_tid.load(), tid.load());
  EXPECT_TRUE(cancel_native_capture(capture));
  stop = true;
  other.join();
}

#if !defined(__SANITIZE_THREAD__)  // ThreadSanitizer delivers a signal only at a call it intercepts: never here
// A corrupt frame whose unwind information points at unreadable memory: libunwind checks the address, stops
// there, and the thread runs on.
TEST(NativeCaptureSignal, AFrameWhoseUnwindInformationPointsAtUnreadableMemoryEndsTheUnwind) {
  ASSERT_NE(install_native_capture_handler(), 0);
  volatile int stop = 0;
  std::atomic<pid_t> tid{0};
  std::atomic<bool> returned{false};
  void* unreadable = mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(unreadable, MAP_FAILED);
  std::thread spinner([&] {
    tid = pid_t(syscall(SYS_gettid));
    umbra_test_spin_with_bad_unwind_info(&stop, unreadable);
    returned = true;
  });
  ASSERT_TRUE(wait_until([&] { return tid.load() != 0; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // inside the spin
  NativeCapture capture;
  ASSERT_TRUE(request_native_capture(tid, capture));
  ASSERT_TRUE(wait_until([&] { return capture.state.load() == NativeCapture::kDone; }));
  EXPECT_EQ(capture.count, 1u) << "the spinning function, then nothing";
  stop = 1;
  spinner.join();
  munmap(unreadable, 4096);
  EXPECT_TRUE(returned.load());
}
#endif

volatile int* g_unmapped = nullptr;  // a page with no access: writing it faults

void faulting_unwinder(NativeCapture& capture, void*) {
  capture.frames[capture.count++] = 0x1234;
  *g_unmapped = 1;
}

// ThreadSanitizer's own handling of a fault inside a signal handler does not return to the guard: not run there.
#if !defined(__SANITIZE_THREAD__)
TEST(NativeCaptureSignal, AFaultInTheUnwinderEndsTheCaptureNotTheProgram) {
  ASSERT_NE(install_native_capture_handler(), 0);
  void* page = mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(page, MAP_FAILED);
  g_unmapped = static_cast<volatile int*>(page);
  replace_native_unwinder(faulting_unwinder);
  for (int round = 0; round < 3; ++round) {
    NativeCapture capture;
    ASSERT_TRUE(request_native_capture(pid_t(syscall(SYS_gettid)), capture));  // answered on this thread at once
    ASSERT_EQ(capture.state.load(), NativeCapture::kDone);
    EXPECT_TRUE(capture.faulted);
    EXPECT_EQ(capture.count, 0u) << "frames read before the fault are not kept";
    capture.state = NativeCapture::kIdle;
  }
  replace_native_unwinder(nullptr);
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)  // theirs would report the fault and exit
  // A fault that is not the unwinder's still reaches the handler that was there before (here the default).
  EXPECT_EXIT(*g_unmapped = 1, ::testing::KilledBySignal(SIGSEGV), "");
#endif
  munmap(page, 4096);
}
#endif

}  // namespace
}  // namespace umbra
