// The ELT3 trampolines, called as JIT-compiled code calls them: every argument and return register survives,
// whatever the stack's alignment at the call, and the hooks reach the calling thread's shadow stack.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <tuple>

#include "hooks/shadow_hooks.h"
#include "shadow_limits.h"
#include "threads/thread_registry.h"

struct RegisterDump {
  uint64_t rax, rdi, rsi, rdx, rcx, r8, r9, r10, r11, r14;
  uint64_t xmm[8][2];
};

extern "C" void umbra_test_call_hook(void (*hook)(umbra::clr::FunctionIDOrClientID), uint64_t r14_value,
                                     uint64_t rdi_value, RegisterDump* out, uint64_t misalign_words);

namespace umbra {
namespace {

using testing::small_limits;

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
}

clr::ThreadID test_thread_id() { return 77; }

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

class Elt3Trampolines : public ::testing::TestWithParam<uint64_t>, protected Elt3Hooks {};

TEST_P(Elt3Trampolines, PreserveEveryRegisterAndFeedTheShadowStack) {
  const uint64_t misalign = GetParam();
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
  const uint64_t misalign = GetParam();
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
  EXPECT_EQ(shadow->current_node()->first_child_acquire()->calls.get(), 3u);
  EXPECT_EQ(shadow->enters(), 4u);
  EXPECT_EQ(shadow->leaves(), 3u);
}

TEST_P(Elt3Trampolines, TheFloorPreservesEverythingAndRecordsNothing) {
  RegisterDump dump{};
  umbra_test_call_hook(&umbra_elt3_noop, 0x42, 0x43, &dump, GetParam());
  expect_preserved(dump, 0x42, 0x43);
  EXPECT_EQ(hooks::existing_shadow(), nullptr);
}

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
  EXPECT_EQ(callee_node->calls.get(), 2u);

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

INSTANTIATE_TEST_SUITE_P(StackAlignment, Elt3Trampolines, ::testing::Values(0u, 1u));

}  // namespace
}  // namespace umbra
