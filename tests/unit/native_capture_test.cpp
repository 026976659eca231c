// Native-top capture by signal: a capture of another thread's native frames, withdrawn requests, the wake-up of the
// requester, and hostile conditions (values forged by another sender, an unwinder that faults on a corrupt stack),
// none of which may harm the program.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "hooks/shadow_hooks.h"
#include "hooks/shadow_pool.h"
#include "loaded_probe_copy.h"
#include "shadow_limits.h"
#include "snapshot/code_ranges.h"
#include "snapshot/native_capture.h"
#include "snapshot/native_symbols.h"
#include "snapshot/unwind_info.h"
#include "snapshot/unwind_rows.h"

extern "C" void umbra_test_spin_with_bad_unwind_info(const volatile int* stop, void* unreadable);

extern "C" __attribute__((noinline, visibility("default"))) void umbra_test_native_busy(std::atomic<bool>* stop) {
  while (!stop->load(std::memory_order_relaxed)) {
    asm volatile("" ::: "memory");
  }
}

// Calls `code` (which calls umbra_test_native_busy) and returns: a native frame below code outside any ELF object.
extern "C" __attribute__((noinline, visibility("default"))) void umbra_test_call_through(void (*code)(std::atomic<bool>*),
                                                                                      std::atomic<bool>* stop) {
  code(stop);
  asm volatile("" ::: "memory");  // not a tail call
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

// A thread spinning in native code until the end of its scope.
struct BusyNativeThread {
  std::atomic<bool> stop{false};
  std::atomic<pid_t> tid{0};
  std::thread thread{[this] {
    tid = pid_t(syscall(SYS_gettid));
    umbra_test_native_busy(&stop);
  }};
  ~BusyNativeThread() {
    stop = true;
    thread.join();
  }
  bool started() const { return wait_for([this] { return tid.load() != 0; }); }
};

// The runtime's activation handler, as the runtime installs it on SIGRTMIN at start-up, before umbra's: every test
// here captures through it, as in a .NET process.
std::atomic<int> g_activations{0};
void runtime_activation_handler(int, siginfo_t*, void*) { g_activations.fetch_add(1); }
void install_runtime_activation_handler() {
  struct sigaction action {};
  action.sa_sigaction = runtime_activation_handler;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  sigaction(SIGRTMIN, &action, nullptr);
}
const bool g_runtime_present = (install_runtime_activation_handler(), true);

TEST(NativeCapture, CapturesTheNativeTopOfAnotherThread) {
  ASSERT_EQ(install_native_capture_handler(), SIGRTMIN) << "the runtime's activation signal, shared";
  auto capture = std::make_unique<NativeCapture>();
  const int activations = g_activations.load();
  const CaptureHandlerCost cost_before = capture_handler_cost();
  {
    BusyNativeThread busy;
    ASSERT_TRUE(busy.started());
    ASSERT_TRUE(request_native_capture(busy.tid, *capture));
    ASSERT_TRUE(wait_for([&] { return capture->state.load() == NativeCapture::kDone; }));
  }
  EXPECT_EQ(g_activations.load(), activations) << "a capture is not an activation of the runtime's";
  // The handler's answer and the CPU time it took on the captured thread (libunwind's work: some microseconds).
  EXPECT_EQ(capture_handler_cost().answers, cost_before.answers + 1);
  EXPECT_GT(capture_handler_cost().cpu_ns, cost_before.cpu_ns);
  // All native code down to the thread's start: the busy function is at the top (below a sanitizer's shim, if
  // any), and no JIT code was met.
  ASSERT_GT(capture->count, 2u);
  NativeSymbols symbols;
  bool busy_on_top = false;
  for (uint32_t i = 0; i < 3; ++i) busy_on_top |= symbols.lookup(capture->frames[i]).name == "umbra_test_native_busy";
  EXPECT_TRUE(busy_on_top) << symbols.lookup(capture->frames[0]).name;
  EXPECT_EQ(capture->stop_ip, 0u);
}

// A stack no capture has seen (a library loaded since: every remembered answer and row is forgotten) is unwound
// with one libunwind lookup per frame: each frame's row, learned by the step, also tells that the frame has unwind
// information. Only the interrupted frame, looked up by its own ip, is asked about separately.
TEST(NativeCapture, AFrameNotSeenBeforeIsLookedUpOnce) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "ThreadSanitizer runs the handler later, from its own code";
#endif
  ASSERT_EQ(install_native_capture_handler(), SIGRTMIN);
  LoadedProbeCopy loaded("native_capture_probe");
  ASSERT_NE(loaded.handle, nullptr) << dlerror();
  process_code_ranges().refresh();
  auto capture = std::make_unique<NativeCapture>();
  const uint64_t lookups_before = unwind_info_lookups(), rows_before = unwind_rows_learned();
  {
    BusyNativeThread busy;
    ASSERT_TRUE(busy.started());
    ASSERT_TRUE(request_native_capture(busy.tid, *capture));
    ASSERT_TRUE(wait_for([&] { return capture->state.load() == NativeCapture::kDone; }));
  }
  ASSERT_GT(capture->count, 2u);
  EXPECT_LE(unwind_info_lookups() - lookups_before, 1u);
  EXPECT_GE(unwind_rows_learned() - rows_before, capture->count - 1);
}

clr::ThreadID a_thread_id() { return 91; }

// A thread whose first hook runs after the sampler prepared its request (which then names no shadow) answers with
// the node of its own shadow: its stack, which holds the hooked method, is counted above that method's node.
TEST(NativeCapture, AThreadWhoseShadowTheRequesterDidNotKnowReadsItsOwn) {
  ASSERT_NE(install_native_capture_handler(), 0);
  ShadowPool pool(testing::small_limits());
  pool.prepare(1);
  hooks::install_pool(&pool, &a_thread_id);
  std::atomic<const CallNode*> entered{nullptr};
  std::atomic<bool> stop{false};
  std::atomic<pid_t> tid{0};
  std::thread thread([&] {
    ThreadShadow* shadow = hooks::current_shadow();
    shadow->enter(0x5000, 0);
    entered = shadow->current_node();
    tid = pid_t(syscall(SYS_gettid));
    umbra_test_native_busy(&stop);
    hooks::release_current_shadow();
  });
  ASSERT_TRUE(wait_for([&] { return tid.load() != 0; }));
  auto capture = std::make_unique<NativeCapture>();
  ASSERT_EQ(capture->shadow, nullptr);
  bool requested = request_native_capture(tid, *capture);
  bool answered = requested && wait_for([&] { return capture->state.load() == NativeCapture::kDone; });
  stop = true;
  thread.join();
  hooks::install_pool(nullptr, nullptr);
  ASSERT_TRUE(answered);
  EXPECT_EQ(capture->shadow_node, entered.load());
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

// Queues the capture signal at this process with `value`, as any process of the same user could.
void forge(int signo, void* value) {
  sigval v;
  v.sival_ptr = value;
  ASSERT_EQ(sigqueue(getpid(), signo, v), 0);
}

TEST(NativeCaptureSignal, ForgedValuesAreIgnored) {
  int signo = install_native_capture_handler();
  ASSERT_NE(signo, 0);
  NativeCapture capture;  // a real capture in the table, requested of nobody
  const int activations = g_activations.load();
  // A value that was a pointer in an earlier design, unmapped memory, bits that look like a slot, and zero.
  for (uintptr_t value : {uintptr_t(0x10), uintptr_t(0xdead0000beef), uintptr_t(capture.slot), uintptr_t(0),
                          reinterpret_cast<uintptr_t>(&capture)})
    forge(signo, reinterpret_cast<void*>(value));
  EXPECT_EQ(capture.state.load(), NativeCapture::kIdle);
  EXPECT_EQ(capture.count, 0u);
#if defined(__SANITIZE_THREAD__)  // ThreadSanitizer keeps one pending instance of a signal, not a queue
  EXPECT_GT(g_activations.load(), activations) << "what umbra did not send is the runtime's to judge";
#else
  EXPECT_EQ(g_activations.load(), activations + 5) << "what umbra did not send is the runtime's to judge";
#endif
}

// The runtime suspends threads for a GC by its activation signal (sent with pthread_kill): each one still reaches
// its handler, through umbra's.
TEST(NativeCaptureSignal, TheRuntimesActivationsStillReachItsHandler) {
  ASSERT_EQ(install_native_capture_handler(), SIGRTMIN);
  const int activations = g_activations.load();
  ASSERT_EQ(pthread_kill(pthread_self(), SIGRTMIN), 0);  // delivered before pthread_kill returns
  EXPECT_EQ(g_activations.load(), activations + 1);
}

// A process without the runtime's handler (or a runtime without one): a real-time signal nobody handles.
TEST(NativeCaptureSignal, WithoutTheRuntimesHandlerAFreeSignalIsUsed) {
  ASSERT_EQ(install_native_capture_handler(), SIGRTMIN);
  ASSERT_TRUE(uninstall_native_capture_handler());
  signal(SIGRTMIN, SIG_DFL);
  int free_signal = install_native_capture_handler();
  EXPECT_GT(free_signal, SIGRTMIN + 2);
  {
    NativeCapture capture;
    BusyNativeThread busy;
    ASSERT_TRUE(busy.started());
    ASSERT_TRUE(request_native_capture(busy.tid, capture));
    EXPECT_TRUE(wait_for([&] { return capture.state.load() == NativeCapture::kDone; }));
  }
  ASSERT_TRUE(uninstall_native_capture_handler());
  install_runtime_activation_handler();
  EXPECT_EQ(install_native_capture_handler(), SIGRTMIN);
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
  ASSERT_TRUE(wait_for([&] { return tid.load() != 0; }));
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
  ASSERT_TRUE(wait_for([&] { return tid.load() != 0; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // inside the spin
  NativeCapture capture;
  ASSERT_TRUE(request_native_capture(tid, capture));
  ASSERT_TRUE(wait_for([&] { return capture.state.load() == NativeCapture::kDone; }));
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

std::atomic<bool> g_inside_unwinder{false}, g_leave_unwinder{false};

void waiting_unwinder(NativeCapture&, void*) {
  g_inside_unwinder = true;
  while (!g_leave_unwinder) {
  }
}

// Detaching unmaps umbra's code: a thread still inside the handler (here held in the unwinder) must be seen, so
// that the handler is not taken away under it.
TEST(NativeCaptureSignal, AThreadInsideTheHandlerIsSeenUntilItLeaves) {
  ASSERT_NE(install_native_capture_handler(), 0);
  replace_native_unwinder(waiting_unwinder);
  auto capture = std::make_unique<NativeCapture>();
  {
    BusyNativeThread busy;
    ASSERT_TRUE(busy.started());
    EXPECT_FALSE(native_capture_handler_running());
    ASSERT_TRUE(request_native_capture(busy.tid, *capture));
    ASSERT_TRUE(wait_for([&] { return g_inside_unwinder.load(); }));
    EXPECT_TRUE(native_capture_handler_running());
    g_leave_unwinder = true;
    EXPECT_TRUE(wait_for([&] { return capture->state.load() == NativeCapture::kDone; }));
    EXPECT_TRUE(wait_for([] { return !native_capture_handler_running(); }));
  }
  replace_native_unwinder(nullptr);
}

// Code outside every ELF object, with an RBP frame and no unwind information, as the JIT writes it: push rbp;
// mov rbp, rsp; mov rax, target; call rax; pop rbp; ret.
// kNoRecord: code with no frame record (RBP is 0 during the call) and a frame of 2 KiB of zeros, in which no
// return address into its native caller is found: the walk cannot leave it.
struct JitLikeCode {
  enum Frame { kRecord, kNoRecord };
  explicit JitLikeCode(void (*target)(std::atomic<bool>*), Frame frame = kRecord) {
    memory = mmap(nullptr, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) return;
    if (frame == kRecord) {
      uint8_t code[] = {0x55, 0x48, 0x89, 0xE5, 0x48, 0xB8, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xD0, 0x5D, 0xC3};
      std::memcpy(code + 6, &target, sizeof target);
      std::memcpy(memory, code, sizeof code);
      return;
    }
    uint8_t code[] = {
        0x55,                                            // push rbp
        0x57,                                            // push rdi (the argument)
        0x31, 0xC0,                                      // xor eax, eax
        0xB9, 0x00, 0x01, 0x00, 0x00,                    // mov ecx, 256
        0x48, 0x81, 0xEC, 0x00, 0x08, 0x00, 0x00,        // sub rsp, 2048
        0x48, 0x89, 0xE7,                                // mov rdi, rsp
        0xF3, 0x48, 0xAB,                                // rep stosq: 2048 bytes of zeros
        0x48, 0x8B, 0xBC, 0x24, 0x00, 0x08, 0x00, 0x00,  // mov rdi, [rsp + 2048]
        0x31, 0xED,                                      // xor ebp, ebp
        0x6A, 0x00,                                      // push 0 (aligns the stack)
        0x48, 0xB8, 0, 0, 0, 0, 0, 0, 0, 0,              // mov rax, target
        0xFF, 0xD0,                                      // call rax
        0x48, 0x81, 0xC4, 0x08, 0x08, 0x00, 0x00,        // add rsp, 2056
        0x5F,                                            // pop rdi
        0x5D,                                            // pop rbp
        0xC3};                                           // ret
    std::memcpy(code + 36, &target, sizeof target);
    std::memcpy(memory, code, sizeof code);
  }
  ~JitLikeCode() { munmap(memory, 4096); }
  void (*entry() const)(std::atomic<bool>*) { return reinterpret_cast<void (*)(std::atomic<bool>*)>(memory); }
  bool contains(uintptr_t ip) const { return ip > uintptr_t(memory) && ip < uintptr_t(memory) + 4096; }
  void* memory;
};

// A thread running native code called from JIT-like code called from native code, its whole stack captured `times`
// times (into the same capture, as the sampler does for a thread); `between` runs before each capture but the first.
// Each stack is kept from the JIT-like frame down.
struct WholeStackCaptures {
  explicit WholeStackCaptures(JitLikeCode::Frame frame = JitLikeCode::kRecord) : jit(umbra_test_native_busy, frame) {}
  std::unique_ptr<NativeCapture> capture = std::make_unique<NativeCapture>();
  std::vector<std::vector<uintptr_t>> stacks;
  std::vector<StackEnd> ends;
  JitLikeCode jit;
};

void capture_whole_stack(WholeStackCaptures& out, int times, const std::function<void()>& between = {}) {
  ASSERT_NE(install_native_capture_handler(), 0);
  ASSERT_NE(out.jit.memory, MAP_FAILED);
  process_code_ranges().refresh();
  ASSERT_TRUE(outside_elf_code(uintptr_t(out.jit.memory) + 1));
  std::atomic<bool> stop{false};
  std::atomic<pid_t> tid{0};
  std::thread busy([&] {
    tid = pid_t(syscall(SYS_gettid));
    umbra_test_call_through(out.jit.entry(), &stop);
  });
  auto stop_busy = [&] {
    stop = true;
    busy.join();
  };
  if (!wait_for([&] { return tid.load() != 0; })) stop_busy();
  ASSERT_NE(tid.load(), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // inside the busy loop by now
  NativeCapture& capture = *out.capture;
  capture.through_managed = true;
  for (int i = 0; i < times; ++i) {
    if (between && i > 0) between();
    bool answered = request_native_capture(tid, capture) &&
                    wait_for([&] { return capture.state.load() == NativeCapture::kDone; });
    if (!answered || capture.faulted) stop_busy();
    ASSERT_TRUE(answered);
    ASSERT_FALSE(capture.faulted);
    // From the JIT-like frame down: above it, the interrupted instruction moves within the busy loop (and under
    // ThreadSanitizer the signal is handled inside its atomic load's shim, or not).
    uint32_t from = 0;
    while (from < capture.count && !out.jit.contains(capture.frames[from])) ++from;
    out.stacks.emplace_back(capture.frames + from, capture.frames + capture.count);
    out.ends.push_back(capture.end);
  }
  stop_busy();
}

// The whole stack, asked for by focused shadow mode: the native top with libunwind, the JIT-like frame by its frame
// pointer, then libunwind again through the native frames below it, down to the thread's start.
TEST(NativeCapture, TheWholeStackGoesThroughCodeWithoutUnwindInformation) {
  WholeStackCaptures captures;
  capture_whole_stack(captures, 1);
  ASSERT_EQ(captures.stacks.size(), 1u);
  const NativeCapture& capture = *captures.capture;
  const JitLikeCode& jit = captures.jit;
  NativeSymbols symbols;
  int busy_at = -1, jit_at = -1, caller_at = -1, start_at = -1;
  for (uint32_t i = 0; i < capture.count; ++i) {
    std::string name = symbols.lookup(capture.frames[i]).name;
    if (busy_at < 0 && name == "umbra_test_native_busy") busy_at = int(i);
    if (jit_at < 0 && jit.contains(capture.frames[i])) jit_at = int(i);
    if (caller_at < 0 && name == "umbra_test_call_through") caller_at = int(i);
    if (name == "start_thread" || name == "clone3" || name == "clone") start_at = int(i);
  }
  EXPECT_GE(busy_at, 0);
  EXPECT_EQ(jit_at, busy_at + 1);
  EXPECT_EQ(caller_at, jit_at + 1);
  EXPECT_GT(start_at, caller_at);
  EXPECT_EQ(capture.end, StackEnd::kThreadStart);
  EXPECT_TRUE(jit.contains(capture.stop_ip));
  // The return address the handler looks for on top of the stack (a frameless managed leaf's) is into managed code
  // only: here the leaf is native, so it is 0 or the return into the JIT-like code that called it.
  EXPECT_TRUE(capture.word_at_sp == 0 || jit.contains(capture.word_at_sp)) << std::hex << capture.word_at_sp;
}

// The native run from the JIT-like frame down to the thread's start is unwound once, then taken from the cache.
TEST(NativeCapture, TheRunThatEndsTheStackIsUnwoundOnceWhileItStaysOnTheStack) {
  WholeStackCaptures captures;
  capture_whole_stack(captures, 3);
  ASSERT_EQ(captures.stacks.size(), 3u);
  ASSERT_GT(captures.stacks[0].size(), 2u) << "the JIT-like frame, its native caller and the thread's start";
  EXPECT_EQ(captures.capture->stack_ends.misses, 1u);
  EXPECT_EQ(captures.capture->stack_ends.hits, 2u);
  EXPECT_EQ(captures.stacks[1], captures.stacks[0]);
  EXPECT_EQ(captures.stacks[2], captures.stacks[0]);
  EXPECT_EQ(captures.ends, std::vector<StackEnd>(3, StackEnd::kThreadStart)) << "a run taken again ends the stack";
}

// A JIT-like frame the frame-pointer chain cannot leave (no record), with no return address into its native caller
// within reach: the stack stops there, short of the thread's start, and says why.
TEST(NativeCapture, AStackThatStopsShortOfTheThreadsStartSaysWhy) {
  WholeStackCaptures captures(JitLikeCode::kNoRecord);
  capture_whole_stack(captures, 2);
  ASSERT_EQ(captures.stacks.size(), 2u);
  EXPECT_EQ(captures.stacks[0].size(), 1u) << "the JIT-like frame, and nothing below it";
  EXPECT_EQ(captures.ends, std::vector<StackEnd>(2, StackEnd::kNoFrameRecord));
  EXPECT_FALSE(captures.capture->truncated);
}

// A capture asked of another thread (a capture serves one thread, but nothing else keeps it so) never reads the runs
// kept from the first thread's stack, which may be gone.
TEST(NativeCapture, RunsKeptFromOneThreadAreForgottenWhenTheCaptureServesAnother) {
  WholeStackCaptures captures;
  capture_whole_stack(captures, 1);
  capture_whole_stack(captures, 1);
  ASSERT_EQ(captures.stacks.size(), 2u);
  int kept = 0;
  for (const auto& e : captures.capture->stack_ends.entries) kept += e.valid;
  EXPECT_EQ(kept, 1) << "only the second thread's run";
  EXPECT_EQ(captures.capture->stack_ends.misses, 2u);
}

TEST(NativeCapture, ARunWhoseReturnAddressChangedIsUnwoundAgainByTheHandler) {
  WholeStackCaptures captures;
  std::vector<uintptr_t> kept;
  capture_whole_stack(captures, 2, [&] {
    // As if the stack now held other callers: a recorded return address no longer matches its slot.
    for (auto& e : captures.capture->stack_ends.entries)
      if (e.valid && e.count > 2) {
        e.ip[2] ^= 1;
        kept.assign(e.ip, e.ip + e.count);
      }
  });
  ASSERT_EQ(captures.stacks.size(), 2u);
  ASSERT_FALSE(kept.empty()) << "the first capture kept its run";
  EXPECT_EQ(captures.capture->stack_ends.hits, 0u);
  EXPECT_EQ(captures.stacks[1], captures.stacks[0]);  // the real frames, not the altered ones
}

}  // namespace
}  // namespace umbra
