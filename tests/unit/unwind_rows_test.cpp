// A step by a remembered unwind row lands where unw_step lands, frame after frame, through ordinary frames and
// through a signal trampoline, and the second unwind of the same stack takes its steps from the rows.
#include "snapshot/unwind_rows.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <ucontext.h>

#include <algorithm>
#include <cstring>
#include <ostream>

#include "snapshot/code_ranges.h"

namespace umbra {
namespace {

struct Frame {
  unw_word_t ip, sp, bp;
  bool exact_lookup;  // by rows only: the frame is to be looked up by its own ip
  bool operator==(const Frame& o) const { return ip == o.ip && sp == o.sp && bp == o.bp; }
};

// The kernel's signal trampoline on x86-64 (glibc's __restore_rt): mov $15, %rax; syscall.
bool is_trampoline(unw_word_t ip) {
  static const unsigned char kCode[] = {0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05};
  return std::memcmp(reinterpret_cast<const void*>(ip), kCode, sizeof kCode) == 0;
}

// A stack as unwound: frames kept in place, since the signal handler below may not allocate.
struct Stack {
  Frame frames[64];
  size_t count = 0;
  size_t size() const { return count; }
  const Frame& operator[](size_t i) const { return frames[i]; }
  bool operator==(const Stack& o) const { return count == o.count && std::equal(frames, frames + count, o.frames); }
};

std::ostream& operator<<(std::ostream& out, const Stack& stack) {
  for (size_t i = 0; i < stack.count; ++i) out << std::hex << " 0x" << stack.frames[i].ip << "/0x" << stack.frames[i].sp;
  return out;
}

// Unwinds from `context` with unw_step, or by remembered rows, until the stack ends (at most 64 frames).
Stack unwind(unw_context_t* context, bool signal_frame, bool by_rows) {
  Stack stack;
  unw_cursor_t cursor;
  if (unw_init_local2(&cursor, context, signal_frame ? UNW_INIT_SIGNAL_FRAME : 0) != 0) return stack;
  bool exact_lookup = signal_frame;
  while (stack.count < 64) {
    Frame f{};
    unw_get_reg(&cursor, UNW_REG_IP, &f.ip);
    unw_get_reg(&cursor, UNW_REG_SP, &f.sp);
    unw_get_reg(&cursor, UNW_X86_64_RBP, &f.bp);
    if (f.ip == 0) break;
    f.exact_lookup = exact_lookup;
    stack.frames[stack.count++] = f;
    int step = by_rows ? step_by_remembered_row(cursor, f.ip, exact_lookup) : unw_step(&cursor);
    if (step <= 0) break;
  }
  return stack;
}

struct Unwinds {
  Stack by_step, learning, by_rows;
  uint64_t steps_by_rows = 0;
};

__attribute__((noinline)) void unwind_here(Unwinds& out) {
  unw_context_t context;
  unw_getcontext(&context);
  out.by_step = unwind(&context, false, false);
  out.learning = unwind(&context, false, true);
  const uint64_t before = steps_by_remembered_row();
  out.by_rows = unwind(&context, false, true);
  out.steps_by_rows = steps_by_remembered_row() - before;
}

__attribute__((noinline)) void nested(int depth, Unwinds& out) {
  if (depth == 0) unwind_here(out);
  else nested(depth - 1, out);
  asm volatile("" ::: "memory");  // not a tail call
}

TEST(UnwindRows, StepsLandWhereUnwStepLands) {
  process_code_ranges().refresh();
  Unwinds u;
  nested(5, u);
  ASSERT_GE(u.by_step.size(), 8u) << "unwind_here, six of nested, the test's callers";
  EXPECT_EQ(u.learning, u.by_step);
  EXPECT_EQ(u.by_rows, u.by_step);
  // Every step but the last (the stack's end, where no row is kept) applies a remembered row.
  EXPECT_GE(u.steps_by_rows, u.by_step.size() - 2);
}

// In a signal handler: from the handler's own frame through the kernel's trampoline (a signal frame: the frame after
// it is looked up by its own ip) into the interrupted thread's frames; and from the interrupted context itself.
Unwinds g_in_handler, g_from_interrupted;

void on_signal(int, siginfo_t*, void* ucontext) {
  unw_context_t context;
  unw_getcontext(&context);
  g_in_handler.by_step = unwind(&context, false, false);
  g_in_handler.learning = unwind(&context, false, true);
  uint64_t before = steps_by_remembered_row();
  g_in_handler.by_rows = unwind(&context, false, true);
  g_in_handler.steps_by_rows = steps_by_remembered_row() - before;
  auto* interrupted = static_cast<unw_context_t*>(ucontext);
  g_from_interrupted.by_step = unwind(interrupted, true, false);
  g_from_interrupted.learning = unwind(interrupted, true, true);
  before = steps_by_remembered_row();
  g_from_interrupted.by_rows = unwind(interrupted, true, true);
  g_from_interrupted.steps_by_rows = steps_by_remembered_row() - before;
}

TEST(UnwindRows, StepsThroughASignalTrampolineLandWhereUnwStepLands) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "ThreadSanitizer runs the handler later, from its own code: no trampoline, the context gone";
#endif
  process_code_ranges().refresh();
  struct sigaction action {}, previous {};
  action.sa_sigaction = on_signal;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  ASSERT_EQ(sigaction(SIGUSR2, &action, &previous), 0);
  auto raise_it = [](int depth, auto& self) -> void {
    if (depth == 0) pthread_kill(pthread_self(), SIGUSR2);
    else self(depth - 1, self);
    asm volatile("" ::: "memory");
  };
  raise_it(3, raise_it);
  sigaction(SIGUSR2, &previous, nullptr);
  ASSERT_GE(g_in_handler.by_step.size(), 5u) << "the handler, the trampoline, the interrupted frames";
  EXPECT_EQ(g_in_handler.learning, g_in_handler.by_step);
  EXPECT_EQ(g_in_handler.by_rows, g_in_handler.by_step);
  EXPECT_GE(g_in_handler.steps_by_rows, 2u);
  // Only the frame the trampoline returns into is looked up by its own ip.
  size_t trampolines = 0;
  for (size_t i = 0; i < g_in_handler.by_rows.size(); ++i) {
    const bool after_trampoline = i > 0 && is_trampoline(g_in_handler.by_rows[i - 1].ip);
    trampolines += after_trampoline;
    EXPECT_EQ(g_in_handler.by_rows[i].exact_lookup, after_trampoline) << "frame " << i;
  }
  EXPECT_EQ(trampolines, 1u);
  ASSERT_GE(g_from_interrupted.by_step.size(), 3u);
  EXPECT_EQ(g_from_interrupted.learning, g_from_interrupted.by_step);
  EXPECT_EQ(g_from_interrupted.by_rows, g_from_interrupted.by_step);
  EXPECT_GE(g_from_interrupted.steps_by_rows, 1u);
  for (size_t i = 0; i < g_from_interrupted.by_rows.size(); ++i)
    EXPECT_EQ(g_from_interrupted.by_rows[i].exact_lookup, i == 0) << "frame " << i;
}

}  // namespace
}  // namespace umbra
