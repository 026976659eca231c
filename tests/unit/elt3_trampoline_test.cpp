// The ELT3 trampolines, called as JIT-compiled code calls them: every argument and return register survives,
// whatever the stack's alignment at the call, and the hooks reach the calling thread's shadow stack.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <tuple>
#include <vector>

#include "hooks/shadow_hooks.h"
#include "hooks/tick_clock.h"
#include "shadow_limits.h"
#include "threads/thread_registry.h"

struct RegisterDump {
  uint64_t rax, rdi, rsi, rdx, rcx, r8, r9, r10, r11, r14;
  uint64_t xmm[8][2];
  uint64_t wide[8][8];  // vector registers 0-7 at the width umbra_test_vector_width names
};

extern "C" {
void umbra_test_call_hook(void (*hook)(umbra::clr::FunctionIDOrClientID), uint64_t r14_value, uint64_t rdi_value,
                          RegisterDump* out, uint64_t misalign_words);
extern const uint64_t umbra_test_wide_sentinels[8][8];
// 0: the probe sets and reads xmm0-7 only; 1: ymm0-7; 2: zmm0-7.
uint8_t umbra_test_vector_width = 0;
}

namespace umbra {
namespace {

using testing::small_limits;

// Found here rather than read from umbra_hook_vector_width: a library that chose too narrow a width then fails.
uint8_t widest_vectors() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return 2;
  return __builtin_cpu_supports("avx") ? 1 : 0;
}
const uint8_t kWidestVectors = umbra_test_vector_width = widest_vectors();

void expect_preserved(const RegisterDump& d, uint64_t r14, uint64_t rdi) {
  EXPECT_EQ(d.rax, 0xa0a0a0a0a0a0a0a0u);
  EXPECT_EQ(d.rdi, rdi);
  EXPECT_EQ(d.rsi, 0xa1a1a1a1a1a1a1a1u);
  EXPECT_EQ(d.rdx, 0xa2a2a2a2a2a2a2a2u);
  EXPECT_EQ(d.rcx, 0xa3a3a3a3a3a3a3a3u);
  EXPECT_EQ(d.r8, 0xa4a4a4a4a4a4a4a4u);
  EXPECT_EQ(d.r9, 0xa5a5a5a5a5a5a5a5u);
  EXPECT_EQ(d.r10, 0xa6a6a6a6a6a6a6a6u);
  EXPECT_EQ(d.r11, 0xa7a7a7a7a7a7a7a7u);
  EXPECT_EQ(d.r14, r14);
  for (uint64_t i = 0; i < 8; ++i) {
    EXPECT_EQ(d.xmm[i][0], 0xb0b0b0b0b0b0b0b0u + i * 0x0101010101010101u) << "xmm" << i;
    EXPECT_EQ(d.xmm[i][1], 0xc0c0c0c0c0c0c0c0u + i * 0x0101010101010101u) << "xmm" << i;
  }
  // Managed code passes and returns vectors in these registers at their full width.
  const int words = umbra_test_vector_width == 2 ? 8 : umbra_test_vector_width == 1 ? 4 : 0;
  for (int i = 0; i < 8; ++i)
    for (int w = 0; w < words; ++w)
      EXPECT_EQ(d.wide[i][w], umbra_test_wide_sentinels[i][w]) << "vector register " << i << ", word " << w;
}

// Runs inside the slow path (a thread's first hook claims its shadow), and writes every vector argument register at
// its full width, as the C++ behind the slow path may through the C library's AVX string functions.
clr::ThreadID test_thread_id() {
  if (umbra_test_vector_width == 2) {
    asm volatile(
        "vpternlogd $0xff, %%zmm0, %%zmm0, %%zmm0\n vpternlogd $0xff, %%zmm1, %%zmm1, %%zmm1\n"
        "vpternlogd $0xff, %%zmm2, %%zmm2, %%zmm2\n vpternlogd $0xff, %%zmm3, %%zmm3, %%zmm3\n"
        "vpternlogd $0xff, %%zmm4, %%zmm4, %%zmm4\n vpternlogd $0xff, %%zmm5, %%zmm5, %%zmm5\n"
        "vpternlogd $0xff, %%zmm6, %%zmm6, %%zmm6\n vpternlogd $0xff, %%zmm7, %%zmm7, %%zmm7\n vzeroupper" ::
            : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7");
  } else if (umbra_test_vector_width == 1) {
    asm volatile(
        "vpcmpeqd %%ymm0, %%ymm0, %%ymm0\n vpcmpeqd %%ymm1, %%ymm1, %%ymm1\n vpcmpeqd %%ymm2, %%ymm2, %%ymm2\n"
        "vpcmpeqd %%ymm3, %%ymm3, %%ymm3\n vpcmpeqd %%ymm4, %%ymm4, %%ymm4\n vpcmpeqd %%ymm5, %%ymm5, %%ymm5\n"
        "vpcmpeqd %%ymm6, %%ymm6, %%ymm6\n vpcmpeqd %%ymm7, %%ymm7, %%ymm7\n vzeroupper" ::
            : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7");
  }
  asm volatile(
      "pcmpeqd %%xmm0, %%xmm0\n pcmpeqd %%xmm1, %%xmm1\n pcmpeqd %%xmm2, %%xmm2\n pcmpeqd %%xmm3, %%xmm3\n"
      "pcmpeqd %%xmm4, %%xmm4\n pcmpeqd %%xmm5, %%xmm5\n pcmpeqd %%xmm6, %%xmm6\n pcmpeqd %%xmm7, %%xmm7" ::
          : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7");
  return 77;
}

// A prepared pool for the calling thread's first hook; its shadow is forgotten afterwards.
class Elt3Hooks {
 protected:
  Elt3Hooks() {
    pool_.prepare(1);
    hooks::install_pool(&pool_, &test_thread_id);
  }
  ~Elt3Hooks() {
    hooks::release_current_shadow();
    hooks::install_pool(nullptr, nullptr);
  }
  ShadowPool pool_{small_limits()};
};

class Elt3FastPath : public ::testing::Test, protected Elt3Hooks {};

// The hooks read the TSC themselves (exact) or the published coarse clock, which is when the assembly fast path
// (elt3_trampolines.S) runs: each test runs with both.
class HookClockChoice {
 public:
  explicit HookClockChoice(bool exact) {
    g_hook_clock.coarse_ticks.store(1000);
    g_hook_clock.exact.store(exact);
  }
  ~HookClockChoice() { g_hook_clock.exact.store(true); }
};

struct TrampolineCase {
  uint64_t misalign_words;
  bool exact_clock;
};

class Elt3Trampolines : public ::testing::TestWithParam<TrampolineCase>, protected Elt3Hooks {
 protected:
  HookClockChoice clock_{GetParam().exact_clock};
};

TEST_P(Elt3Trampolines, PreserveEveryRegisterAndFeedTheShadowStack) {
  const uint64_t misalign = GetParam().misalign_words;
  const clr::FunctionID outer = 0x1000, inner = 0x2000, tail_target = 0x3000;
  RegisterDump dump{};

  // Enter takes its argument in r14; rdi holds the method's first argument and must survive too.
  umbra_test_call_hook(&umbra_elt3_enter, outer, 0xd1d1d1d1d1d1d1d1u, &dump, misalign);
  expect_preserved(dump, outer, 0xd1d1d1d1d1d1d1d1u);
  ThreadShadow* shadow = hooks::existing_shadow();
  ASSERT_NE(shadow, nullptr);
  EXPECT_EQ(shadow->thread_id, 77u);
  EXPECT_EQ(shadow->depth(), 1u);
  EXPECT_EQ(shadow->current_node()->function, outer);

  umbra_test_call_hook(&umbra_elt3_enter, inner, 0, &dump, misalign);
  expect_preserved(dump, inner, 0);
  EXPECT_EQ(shadow->depth(), 2u);

  // Leave and tailcall take theirs in rdi; r14 is the caller's and must survive.
  umbra_test_call_hook(&umbra_elt3_tailcall, 0x5555, inner, &dump, misalign);
  expect_preserved(dump, 0x5555, inner);
  EXPECT_EQ(shadow->depth(), 1u);
  umbra_test_call_hook(&umbra_elt3_enter, tail_target, 0, &dump, misalign);
  EXPECT_EQ(shadow->current_node()->tail_entries.get(), 1u);
  umbra_test_call_hook(&umbra_elt3_leave, 0x6666, tail_target, &dump, misalign);
  expect_preserved(dump, 0x6666, tail_target);
  umbra_test_call_hook(&umbra_elt3_leave, 0x6666, outer, &dump, misalign);
  EXPECT_EQ(shadow->depth(), 0u);
  EXPECT_EQ(shadow->enters(), 3u);
  EXPECT_EQ(shadow->leaves(), 2u);
  EXPECT_EQ(shadow->tailcalls(), 1u);
}

// A loop calling one method: after the first call, enter and leave both take the fast path (elt3_fast_path.cpp),
// which saves only the general scratch registers; the vector registers must survive it untouched.
TEST_P(Elt3Trampolines, TheFastPathsPreserveEveryRegisterAndCountEveryCall) {
  const uint64_t misalign = GetParam().misalign_words;
  const clr::FunctionID loop = 0x1000, callee = 0x2000;
  RegisterDump dump{};
  umbra_test_call_hook(&umbra_elt3_enter, loop, 0, &dump, misalign);
  ThreadShadow* shadow = hooks::existing_shadow();
  ASSERT_NE(shadow, nullptr);
  for (uint64_t i = 0; i < 3; ++i) {
    umbra_test_call_hook(&umbra_elt3_enter, callee, 0xd2d2d2d2d2d2d2d2u, &dump, misalign);
    expect_preserved(dump, callee, 0xd2d2d2d2d2d2d2d2u);
    EXPECT_EQ(shadow->depth(), 2u);
    umbra_test_call_hook(&umbra_elt3_leave, 0x6666, callee, &dump, misalign);
    expect_preserved(dump, 0x6666, callee);
    EXPECT_EQ(shadow->depth(), 1u);
  }
  ASSERT_NE(shadow->current_node()->first_child_acquire(), nullptr);
  EXPECT_EQ(shadow->current_node()->first_child_acquire()->calls(), 3u);
  EXPECT_EQ(shadow->enters(), 4u);
  EXPECT_EQ(shadow->leaves(), 3u);
}

// A thread whose first hook is a leave (its method began before the hooks): the leave's slow path claims the
// shadow, and the return registers, vectors at full width included, still reach the caller.
TEST_P(Elt3Trampolines, ALeaveAsAThreadsFirstHookPreservesEveryRegister) {
  RegisterDump dump{};
  umbra_test_call_hook(&umbra_elt3_leave, 0x6666, 0x1000, &dump, GetParam().misalign_words);
  expect_preserved(dump, 0x6666, 0x1000);
  ASSERT_NE(hooks::existing_shadow(), nullptr);
  EXPECT_EQ(hooks::existing_shadow()->depth(), 0u);
}

TEST_P(Elt3Trampolines, TheFloorPreservesEverythingAndRecordsNothing) {
  RegisterDump dump{};
  umbra_test_call_hook(&umbra_elt3_noop, 0x42, 0x43, &dump, GetParam().misalign_words);
  expect_preserved(dump, 0x42, 0x43);
  EXPECT_EQ(hooks::existing_shadow(), nullptr);
}

// Each width the slow path may save at, as on a machine whose widest vector registers are those: the slow path keeps
// them whole while the C++ behind it writes them at that width.
class Elt3SlowPathVectors : public ::testing::TestWithParam<uint8_t>, protected Elt3Hooks {
 protected:
  void SetUp() override {
    if (GetParam() > kWidestVectors) GTEST_SKIP() << "this machine's vector registers are narrower";
    umbra_hook_vector_width = umbra_test_vector_width = GetParam();
  }
  void TearDown() override { umbra_hook_vector_width = umbra_test_vector_width = kWidestVectors; }
};

TEST_P(Elt3SlowPathVectors, EnterAndLeaveKeepTheVectorRegistersWhole) {
  RegisterDump dump{};
  umbra_test_call_hook(&umbra_elt3_enter, 0x1000, 0xd1d1d1d1d1d1d1d1u, &dump, 0);
  expect_preserved(dump, 0x1000, 0xd1d1d1d1d1d1d1d1u);
  hooks::release_current_shadow();
  pool_.prepare(1);
  umbra_test_call_hook(&umbra_elt3_leave, 0x6666, 0x1000, &dump, 1);
  expect_preserved(dump, 0x6666, 0x1000);
}

INSTANTIATE_TEST_SUITE_P(XmmYmmZmm, Elt3SlowPathVectors, ::testing::Values(uint8_t{0}, uint8_t{1}, uint8_t{2}));

// The fast path answers the common enter and leave and nothing else; when it declines, nothing has changed.
TEST_F(Elt3FastPath, AnswersOnlyTheCommonCasesAndOtherwiseChangesNothing) {
  if (!umbra_elt3_fast_path_built) GTEST_SKIP() << "compiled out in sanitizer builds";
  const clr::FunctionID outer = 0x1000, callee = 0x2000, target = 0x3000;
  EXPECT_FALSE(umbra_elt3_try_enter(outer)) << "no shadow claimed yet";
  EXPECT_EQ(hooks::existing_shadow(), nullptr);
  umbra_elt3_on_enter(outer);
  ThreadShadow* shadow = hooks::existing_shadow();
  ASSERT_NE(shadow, nullptr);
  auto state = [&] {
    return std::make_tuple(shadow->depth(), shadow->current_node(), shadow->enters(), shadow->leaves());
  };

  auto before = state();
  EXPECT_FALSE(umbra_elt3_try_enter(callee)) << "a call path not entered before";
  EXPECT_EQ(state(), before);
  umbra_elt3_on_enter(callee);
  CallNode* callee_node = shadow->current_node();

  before = state();
  EXPECT_FALSE(umbra_elt3_try_leave(target)) << "not the function on top";
  EXPECT_EQ(state(), before);
  EXPECT_TRUE(umbra_elt3_try_leave(callee));
  EXPECT_EQ(shadow->depth(), 1u);
  EXPECT_TRUE(umbra_elt3_try_enter(callee)) << "the node just left, entered again";
  EXPECT_EQ(shadow->current_node(), callee_node);
  EXPECT_EQ(callee_node->calls(), 2u);

  // A tail call leaves a pending tail entry: the caller's leave must not be taken for the callee's.
  before = state();
  EXPECT_FALSE(umbra_elt3_try_tailcall(target)) << "not the function on top";
  EXPECT_EQ(state(), before);
  EXPECT_TRUE(umbra_elt3_try_tailcall(callee));
  EXPECT_EQ(shadow->depth(), 1u);
  EXPECT_EQ(shadow->tailcalls(), 1u);
  before = state();
  EXPECT_FALSE(umbra_elt3_try_leave(outer));
  EXPECT_EQ(state(), before);
  umbra_elt3_on_enter(target);
  EXPECT_EQ(shadow->current_node()->tail_entries.get(), 1u);
  EXPECT_TRUE(umbra_elt3_try_leave(target));
  EXPECT_TRUE(umbra_elt3_try_leave(outer));

  before = state();
  EXPECT_FALSE(umbra_elt3_try_leave(outer)) << "an empty stack";
  EXPECT_EQ(state(), before);
  EXPECT_EQ(shadow->depth(), 0u);
}

INSTANTIATE_TEST_SUITE_P(StackAlignmentAndClock, Elt3Trampolines,
                         ::testing::Values(TrampolineCase{0, true}, TrampolineCase{1, true}, TrampolineCase{0, false},
                                           TrampolineCase{1, false}));

// One hook event of a recorded run.
struct HookEvent {
  enum Kind { kEnter, kLeave, kTailcall } kind;
  clr::FunctionID function;
};

// A program whose calls repeat as real ones do, with variations: each method calls a fixed list of others, skips
// some at random, loops on some, and tail-calls some; the same method is reached by many paths.
std::vector<HookEvent> program_events(uint32_t seed, size_t at_least) {
  std::mt19937 random(seed);
  constexpr int kMethods = 24;
  std::vector<std::vector<int>> callees(kMethods);
  for (int m = 0; m < kMethods; ++m)
    for (int c = 0; c < 1 + int(random() % 3); ++c) callees[m].push_back(m + 1 + int(random() % 3));
  std::vector<HookEvent> events;
  auto function_of = [](int m) { return clr::FunctionID(0x10000 + 0x40 * m); };
  std::function<void(int, int)> call = [&](int m, int depth) {
    events.push_back({HookEvent::kEnter, function_of(m)});
    if (m < kMethods && depth < 8) {
      for (size_t i = 0; i < callees[m].size(); ++i) {
        int callee = callees[m][i];
        if (random() % 8 == 0) continue;  // a branch not taken this time
        for (int round = int(random() % 4 == 0 ? 3 : 1); round > 0; --round) call(callee, depth + 1);
      }
      if (random() % 3 == 0) {  // ends with a tail call: its frame is replaced by the callee's
        events.push_back({HookEvent::kTailcall, function_of(m)});
        call(m + 1 + int(random() % 3), depth);
        return;
      }
    }
    events.push_back({HookEvent::kLeave, function_of(m)});
  };
  while (events.size() < at_least) call(0, 0);
  return events;
}

// Node by node: the same methods, calls, times and tail entries.
void expect_same_tree(const CallNode& a, const CallNode& b, const std::string& path) {
  EXPECT_EQ(a.function, b.function) << path;
  EXPECT_EQ(a.calls(), b.calls()) << path;
  EXPECT_EQ(a.total_ticks(), b.total_ticks()) << path;
  EXPECT_EQ(a.tail_entries.get(), b.tail_entries.get()) << path;
  const CallNode* x = a.first_child_acquire();
  const CallNode* y = b.first_child_acquire();
  for (; x && y; x = x->next_sibling, y = y->next_sibling)
    expect_same_tree(*x, *y, path + "/" + std::to_string(x->function));
  EXPECT_EQ(x == nullptr, y == nullptr) << path << ": a different number of children";
}

// Limits for the differential test: room for the whole program, a stack shallower than its calls, a tree with room
// for a fraction of its nodes.
struct DifferentialCase {
  uint32_t max_depth;
  size_t node_bytes;
};

class Elt3AssemblyFastPath : public ::testing::TestWithParam<DifferentialCase> {};

// Through the trampolines with the coarse clock, where the assembly fast path answers most hooks, the tree is
// what ThreadShadow's C++ makes of the same events, every register survives every hook, and the limits the
// assembly reads always say what the shadow's state says.
TEST_P(Elt3AssemblyFastPath, MakesTheTreeTheCppPathMakes) {
  HookClockChoice coarse(false);
  const ShadowLimits limits = small_limits(GetParam().max_depth, GetParam().node_bytes);
  std::vector<HookEvent> events = program_events(7, 200000);
  ShadowPool pool(limits);
  pool.prepare(1);
  hooks::install_pool(&pool, &test_thread_id);
  ThreadShadow reference(limits);
  RegisterDump dump{};
  umbra_test_call_hook(&umbra_elt3_enter, 0x99, 0, &dump, 0);  // claims the thread's shadow
  ThreadShadow* shadow = hooks::existing_shadow();
  ASSERT_NE(shadow, nullptr);
  reference.enter(0x99, 1000);
  uint64_t ticks = 1000;
  for (size_t i = 0; i < events.size(); ++i) {
    const HookEvent& e = events[i];
    if (i % 7 == 0) g_hook_clock.coarse_ticks.store(++ticks);
    switch (e.kind) {
      case HookEvent::kEnter:
        umbra_test_call_hook(&umbra_elt3_enter, e.function, i, &dump, i & 1);
        reference.enter(e.function, ticks);
        break;
      case HookEvent::kLeave:
        umbra_test_call_hook(&umbra_elt3_leave, i, e.function, &dump, i & 1);
        reference.leave(e.function, ticks);
        break;
      case HookEvent::kTailcall:
        umbra_test_call_hook(&umbra_elt3_tailcall, i, e.function, &dump, i & 1);
        reference.tailcall(e.function, ticks);
        break;
    }
    if (e.kind == HookEvent::kEnter) expect_preserved(dump, e.function, i);
    else expect_preserved(dump, i, e.function);
    ASSERT_EQ(shadow->depth(), reference.depth()) << "event " << i;
    ASSERT_EQ(shadow->current_node()->function, reference.current_node()->function) << "event " << i;
    ASSERT_TRUE(shadow->fast_limits_current()) << "event " << i;
  }
  EXPECT_EQ(shadow->enters(), reference.enters());
  EXPECT_EQ(shadow->leaves(), reference.leaves());
  EXPECT_EQ(shadow->tailcalls(), reference.tailcalls());
  EXPECT_EQ(shadow->node_count(), reference.node_count());
  for (DropReason reason : {DropReason::kTreeFull, DropReason::kStackOverflow})
    EXPECT_EQ(shadow->drops(reason), reference.drops(reason)) << kDropReasonNames[size_t(reason)];
  const bool whole = GetParam().max_depth >= 16 && GetParam().node_bytes >= (size_t(1) << 20);
  EXPECT_EQ(shadow->drops(DropReason::kTreeFull) + shadow->drops(DropReason::kStackOverflow) == 0, whole)
      << "each case reaches the limit it is meant to reach, and only that one";
  expect_same_tree(shadow->root(), reference.root(), "");
  hooks::release_current_shadow();
  hooks::install_pool(nullptr, nullptr);
}

INSTANTIATE_TEST_SUITE_P(Limits, Elt3AssemblyFastPath,
                         ::testing::Values(DifferentialCase{64, size_t(64) << 20},   // room for everything
                                           DifferentialCase{6, size_t(64) << 20},    // calls past the stack
                                           DifferentialCase{64, kNodeBytes * 40}));  // calls past the tree

}  // namespace
}  // namespace umbra
