// The sampler's parts that need no runtime: native-top capture by signal, unwinding from a register context,
// the sampled tree, and the walk guard ThreadDestroyed waits on.
#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "snapshot/native_capture.h"
#include "snapshot/native_symbols.h"
#include "snapshot/sampled_tree.h"
#include "snapshot/stack_walk.h"
#include "snapshot/thread_cpu_time.h"
#include "shadow_limits.h"
#include "threads/thread_registry.h"

extern "C" __attribute__((noinline, visibility("default"))) void umbra_test_native_busy(std::atomic<bool>* stop) {
  while (!stop->load(std::memory_order_relaxed)) {
    asm volatile("" ::: "memory");
  }
}

namespace umbra {
namespace {

bool wait_for(const std::function<bool()>& condition) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  return true;
}

TEST(NativeCapture, CapturesTheNativeTopOfAnotherThread) {
  ASSERT_NE(install_native_capture_handler(), 0);
  std::atomic<bool> stop{false};
  std::atomic<pid_t> tid{0};
  std::thread busy([&] {
    tid = pid_t(syscall(SYS_gettid));
    umbra_test_native_busy(&stop);
  });
  ASSERT_TRUE(wait_for([&] { return tid.load() != 0; }));
  auto capture = std::make_unique<NativeCapture>();
  ASSERT_TRUE(request_native_capture(tid, *capture));
  ASSERT_TRUE(wait_for([&] { return capture->state.load() == NativeCapture::kDone; }));
  stop = true;
  busy.join();
  // All native code down to the thread's start: the busy function is at the top (below a sanitizer's shim, if
  // any), and no JIT code was met.
  ASSERT_GT(capture->count, 2u);
  NativeSymbols symbols;
  bool busy_on_top = false;
  for (uint32_t i = 0; i < 3; ++i) busy_on_top |= symbols.lookup(capture->frames[i]).name == "umbra_test_native_busy";
  EXPECT_TRUE(busy_on_top) << symbols.lookup(capture->frames[0]).name;
  EXPECT_EQ(capture->stop_ip, 0u);
}

TEST(NativeCapture, AThreadThatDoesNotExistIsReportedAndLeavesTheCaptureIdle) {
  ASSERT_NE(install_native_capture_handler(), 0);
  // Beyond any pid_max (a just-joined thread may still take a signal as a zombie, so it would not do).
  const pid_t no_such_thread = 0x7ffffff0;
  NativeCapture capture;
  EXPECT_FALSE(request_native_capture(no_such_thread, capture));
  EXPECT_EQ(capture.state.load(), NativeCapture::kIdle);
}

TEST(NativeCapture, ARequestCanBeWithdrawnBeforeItIsAnswered) {
  NativeCapture capture;
  capture.state = NativeCapture::kRequested;
  EXPECT_TRUE(cancel_native_capture(capture));
  EXPECT_EQ(capture.state.load(), NativeCapture::kIdle);
  capture.state = NativeCapture::kCapturing;
  EXPECT_FALSE(cancel_native_capture(capture));
}

// A thread that holds the capture signal blocked until told to take it: the test decides when the answer comes.
class HeldAnswer {
 public:
  explicit HeldAnswer(int signal) : signal_(signal) {
    thread_ = std::thread([this] {
      sigset_t only;
      sigemptyset(&only);
      sigaddset(&only, signal_);
      pthread_sigmask(SIG_BLOCK, &only, nullptr);
      tid_ = pid_t(syscall(SYS_gettid));
      while (!release_.load()) std::this_thread::sleep_for(std::chrono::microseconds(100));
      pthread_sigmask(SIG_UNBLOCK, &only, nullptr);  // the queued request is answered here
      umbra_test_native_busy(&stop_);
    });
    wait_for([&] { return tid_.load() != 0; });
  }
  ~HeldAnswer() {
    release_ = true;
    stop_ = true;
    thread_.join();
  }
  pid_t tid() const { return tid_; }
  void release() { release_ = true; }

 private:
  int signal_;
  std::atomic<pid_t> tid_{0};
  std::atomic<bool> release_{false}, stop_{false};
  std::thread thread_;
};

// Waits as the sampler does; true if the answer ended the wait, long before the generous deadline (a wait that
// ran to its deadline finds the capture done too, so the clock decides).
bool answered_before_timeout(NativeCapture& capture) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  bool done = wait_for_native_captures([&] { return capture.state.load() != NativeCapture::kDone; }, deadline);
  return done && std::chrono::steady_clock::now() < deadline;
}

// One request to a thread that answers when told, sent in a round begun as the sampler begins one.
class NativeCaptureRound : public ::testing::Test {
 protected:
  void SetUp() override {
    int signal = install_native_capture_handler();
    ASSERT_NE(signal, 0);
    target_ = std::make_unique<HeldAnswer>(signal);
    begin_native_capture_round();
    ASSERT_TRUE(request_native_capture(target_->tid(), *capture_));
  }
  std::unique_ptr<NativeCapture> capture_ = std::make_unique<NativeCapture>();
  std::unique_ptr<HeldAnswer> target_;  // destroyed first: its thread may still answer into capture_
};

TEST_F(NativeCaptureRound, TheAnswerWakesTheRequester) {
  EXPECT_EQ(int32_t(native_capture_answers()), 1);  // outstanding
  target_->release();
  EXPECT_TRUE(answered_before_timeout(*capture_));
  EXPECT_EQ(int32_t(native_capture_answers()), 0);
}

TEST_F(NativeCaptureRound, AnAnswerFromAnEarlierRoundStillWakesTheRequester) {
  begin_native_capture_round();  // the next tick began before the answer came: its count is already zero
  target_->release();
  EXPECT_TRUE(answered_before_timeout(*capture_));
  EXPECT_EQ(int32_t(native_capture_answers()), -1);
}

// A linux-x64 PAL CONTEXT carrying this function's registers, as the runtime would pass it, unwound `times` times
// from the same frame, each time into a fresh sink (through `cache` when given); returns each time's frames.
__attribute__((noinline)) std::vector<std::vector<uintptr_t>> unwind_here_repeatedly(
    size_t capacity, int times, NativeRunCache* cache = nullptr, const std::function<void()>& between = {},
    bool* overflowed = nullptr) {
  ucontext_t uc;
  getcontext(&uc);
  uint8_t context[0x100] = {};
  auto put = [&](uint32_t offset, greg_t v) { std::memcpy(context + offset, &v, sizeof v); };
  put(0x90, uc.uc_mcontext.gregs[REG_RBX]);
  put(0x98, uc.uc_mcontext.gregs[REG_RSP]);
  put(0xA0, uc.uc_mcontext.gregs[REG_RBP]);
  put(0xD8, uc.uc_mcontext.gregs[REG_R12]);
  put(0xE0, uc.uc_mcontext.gregs[REG_R13]);
  put(0xE8, uc.uc_mcontext.gregs[REG_R14]);
  put(0xF0, uc.uc_mcontext.gregs[REG_R15]);
  put(0xF8, uc.uc_mcontext.gregs[REG_RIP]);
  std::vector<std::vector<uintptr_t>> runs;
  for (int i = 0; i < times; ++i) {
    if (between && i > 0) between();
    std::vector<SampleFrame> frames(capacity);
    FrameSink sink{frames.data(), capacity};
    sink.native_runs = cache;
    unwind_native_from_context(context, sizeof context, sink);
    if (overflowed) *overflowed = sink.overflowed;
    runs.emplace_back();
    for (size_t f = 0; f < sink.count; ++f) runs.back().push_back(frames[f].id);
  }
  return runs;
}

TEST(StackWalk, UnwindsFromARegisterContext) {
  std::vector<uintptr_t> ips = unwind_here_repeatedly(64, 1)[0];
  ASSERT_GT(ips.size(), 3u);
  NativeSymbols symbols;
  bool found_test = false;
  for (uintptr_t ip : ips)
    found_test |= symbols.lookup(ip).name.find("UnwindsFromARegisterContext") != std::string::npos ||
                  symbols.lookup(ip).module.find("umbra_unit_tests") != std::string::npos;
  EXPECT_TRUE(found_test);
}

TEST(StackWalk, ARunStillOnTheStackIsNotUnwoundAgain) {
  NativeRunCache cache;
  auto runs = unwind_here_repeatedly(64, 3, &cache);
  EXPECT_EQ(cache.misses, 1u);
  EXPECT_EQ(cache.hits, 2u);
  ASSERT_GT(runs[0].size(), 3u);
  EXPECT_EQ(runs[1], runs[0]);
  EXPECT_EQ(runs[2], runs[0]);
}

TEST(StackWalk, ARunWhoseReturnAddressChangedIsUnwoundAgain) {
  NativeRunCache cache;
  auto runs = unwind_here_repeatedly(64, 2, &cache, [&] {
    // As if the stack now held other callers: a recorded return address no longer matches its slot.
    for (auto& e : cache.entries)
      if (e.valid && e.count > 2) e.ip[2] ^= 1;
  });
  EXPECT_EQ(cache.hits, 0u);
  EXPECT_EQ(cache.misses, 2u);
  EXPECT_EQ(runs[1], runs[0]);  // the real frames, not the altered ones
}

TEST(StackWalk, AShortContextIsIgnoredAndAFullSinkSaysSo) {
  uint8_t context[0x80] = {};
  SampleFrame frames[2];
  FrameSink sink{frames, 2};
  unwind_native_from_context(context, sizeof context, sink);
  EXPECT_EQ(sink.count, 0u);
  bool overflowed = false;
  NativeRunCache cache;
  auto runs = unwind_here_repeatedly(2, 2, &cache, {}, &overflowed);
  EXPECT_EQ(runs[1].size(), 2u);
  EXPECT_TRUE(overflowed);
  EXPECT_EQ(cache.hits, 0u);  // a run cut short is not kept
}

TEST(SampledTree, CountsSamplesPerPath) {
  SampledTree tree;
  SampleFrame main{1, false}, work{2, false}, native{0x1000, true};
  SampleFrame a[] = {main, work};
  SampleFrame b[] = {main, work, native};
  tree.add(a, 2);
  tree.add(a, 2);
  tree.add(b, 3);
  EXPECT_EQ(tree.samples(), 3u);
  ASSERT_EQ(tree.root().children.size(), 1u);
  const auto& m = tree.node(tree.root().children[0]);
  EXPECT_EQ(m.frame.id, 1u);
  EXPECT_EQ(m.self_samples, 0u);
  const auto& w = tree.node(m.children[0]);
  EXPECT_EQ(w.self_samples, 2u);
  ASSERT_EQ(w.children.size(), 1u);
  EXPECT_TRUE(tree.node(w.children[0]).frame.native);
  EXPECT_EQ(tree.node(w.children[0]).self_samples, 1u);
}

TEST(SampledTree, AStackSeenAgainCountsAtTheNodeItEndedAt) {
  SampledTree tree;
  SampleFrame main{1, false}, wait{0x2000, true};
  SampleFrame a[] = {main, wait};
  uint32_t leaf = tree.add(a, 2);
  tree.add_again(leaf);
  tree.add_again(leaf);
  EXPECT_EQ(tree.samples(), 3u);
  EXPECT_EQ(tree.size(), 3u);  // no node was added
  EXPECT_EQ(tree.node(leaf).frame.id, 0x2000u);
  EXPECT_EQ(tree.node(leaf).self_samples, 3u);
  EXPECT_EQ(tree.add(a, 1), tree.node(leaf).parent);
}

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

TEST(WalkGuard, ThreadDestroyedWaitsForTheWalkInFlight) {
  ShadowPool pool(testing::small_limits());
  ThreadRegistry registry(pool);
  registry.on_created(42);
  std::vector<std::shared_ptr<SampledThread>> targets;
  registry.sampling_targets(targets);
  ASSERT_EQ(targets.size(), 1u);
  ASSERT_TRUE(targets[0]->begin_walk());
  std::atomic<bool> destroyed{false};
  std::thread destroyer([&] {
    registry.on_destroyed(42);
    destroyed = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(destroyed.load());  // still walking
  targets[0]->end_walk();
  destroyer.join();
  EXPECT_TRUE(destroyed.load());
  EXPECT_FALSE(targets[0]->begin_walk());  // a dying thread is never walked again
  registry.sampling_targets(targets);
  EXPECT_TRUE(targets.empty());
  auto all = registry.sampled_threads();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_TRUE(all[0].exited);
}

TEST(WalkGuard, ConcurrentWalksAndDestroys) {
  ShadowPool pool(testing::small_limits());
  ThreadRegistry registry(pool);
  constexpr int kThreads = 200;
  for (int i = 1; i <= kThreads; ++i) registry.on_created(clr::ThreadID(i));
  std::atomic<bool> done{false};
  std::atomic<int> walks{0};
  // The guarantee: ThreadDestroyed never returns while a walk of its thread is in flight.
  std::vector<std::atomic<bool>> destroy_returned(kThreads + 1);
  std::atomic<int> violations{0};
  std::thread sampler([&] {
    std::vector<std::shared_ptr<SampledThread>> targets;
    while (!done) {
      registry.sampling_targets(targets);
      for (auto& t : targets) {
        if (!t->begin_walk()) continue;
        for (int spin = 0; spin < 50; ++spin) {
          if (destroy_returned[t->thread_id].load(std::memory_order_seq_cst)) violations.fetch_add(1);
          std::this_thread::yield();
        }
        walks.fetch_add(1);
        t->end_walk();
      }
    }
  });
  for (int i = 1; i <= kThreads; ++i) {
    registry.on_destroyed(clr::ThreadID(i));
    destroy_returned[i].store(true, std::memory_order_seq_cst);
  }
  done = true;
  sampler.join();
  EXPECT_EQ(violations.load(), 0);
  EXPECT_EQ(registry.threads_destroyed(), uint64_t(kThreads));
  std::vector<std::shared_ptr<SampledThread>> left;
  registry.sampling_targets(left);
  EXPECT_TRUE(left.empty());
}

}  // namespace
}  // namespace umbra
