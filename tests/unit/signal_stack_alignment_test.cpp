// Where a stack taken by signal meets the shadow stack of the same instant (focused shadow mode).
#include "sampler/signal_stack_alignment.h"

#include <gtest/gtest.h>

#include <vector>

#include "hooks/thread_shadow.h"

namespace umbra {
namespace {

using Outcome = SignalStackAlignment::Outcome;

constexpr clr::FunctionID kMain = 10, kHooked = 20, kUnhooked = 30, kLeaf = 40;

SampleFrame managed(clr::FunctionID f) { return {f, false}; }
SampleFrame native(uintptr_t ip) { return {ip, true}; }

// root -> Main (hooked) -> Hooked (hooked, the current node)
struct Shadow {
  CallNode root;
  CallNode main{kMain, &root};
  CallNode hooked{kHooked, &main};
};

SignalStackAlignment align(const std::vector<SampleFrame>& leaf_first, const CallNode* node,
                           clr::FunctionID returns_into = 0, bool truncated = false) {
  return align_with_shadow(leaf_first.data(), leaf_first.size(), node, returns_into, truncated);
}

TEST(SignalStackAlignment, FramesAboveTheInnermostHookedFrameAreCounted) {
  Shadow s;
  // write (native) <- Leaf <- Unhooked <- Hooked <- Main <- start-up (native)
  auto at = align({native(0x1), managed(kLeaf), managed(kUnhooked), managed(kHooked), managed(kMain), native(0x2)},
                  &s.hooked);
  EXPECT_EQ(at.outcome, Outcome::kAboveHooked);
  EXPECT_EQ(at.above, 3u);
}

TEST(SignalStackAlignment, TheHookedMethodRunningItselfIsASampleOnItsNode) {
  Shadow s;
  EXPECT_EQ(align({managed(kHooked), managed(kMain)}, &s.hooked).outcome, Outcome::kOnHookedFrame);
}

// A frameless leaf's caller is skipped by the frame-pointer chain: found again from the return address on top of
// the stack, or from the hooked frame's own caller following the leaf.
TEST(SignalStackAlignment, AFramelessLeafAboveTheHookedFrameIsFoundBack) {
  Shadow s;
  // The chain past the leaf went astray (a native frame where Main's was expected): only the return address says.
  auto by_return_address = align({managed(kLeaf), native(0x9)}, &s.hooked, kHooked);
  EXPECT_EQ(by_return_address.outcome, Outcome::kAboveHooked);
  EXPECT_EQ(by_return_address.above, 1u);
  auto by_caller = align({native(0x1), managed(kLeaf), managed(kMain)}, &s.hooked);
  EXPECT_EQ(by_caller.outcome, Outcome::kAboveHooked);
  EXPECT_EQ(by_caller.above, 2u);
}

TEST(SignalStackAlignment, AStackWithoutTheHookedFrameIsUnaligned) {
  Shadow s;
  EXPECT_EQ(align({managed(kLeaf), managed(kUnhooked), managed(kMain)}, &s.hooked).outcome, Outcome::kUnaligned);
  EXPECT_EQ(align({managed(kLeaf), managed(kUnhooked)}, &s.hooked, kUnhooked).outcome, Outcome::kUnaligned);
  EXPECT_EQ(align({native(0x1), native(0x2)}, &s.hooked).outcome, Outcome::kUnaligned);
  EXPECT_EQ(align({}, &s.hooked).outcome, Outcome::kUnaligned);
}

TEST(SignalStackAlignment, WithoutAHookedFrameTheManagedStackIsKeptWithoutTheNativeStartUp) {
  Shadow s;
  std::vector<SampleFrame> stack{native(0x1), managed(kLeaf), managed(kUnhooked), native(0x2), native(0x3)};
  for (const CallNode* node : std::vector<const CallNode*>{nullptr, &s.root}) {
    auto at = align(stack, node);
    EXPECT_EQ(at.outcome, Outcome::kNoHookedFrame);
    EXPECT_EQ(at.above, 3u);
  }
  EXPECT_EQ(align(stack, nullptr, 0, true).outcome, Outcome::kTruncated);
  EXPECT_EQ(align({native(0x1), native(0x2)}, nullptr).outcome, Outcome::kNoManagedFrame);
}

// Sampled mode (no shadow stack): a managed leaf whose frame is not set up hides its caller from the chain; the
// return address on top of the stack puts it back, unless the chain already shows it or the leaf is native code.
TEST(SignalStackAlignment, WithoutAHookedFrameAFramelessLeafsCallerIsPutBack) {
  auto hidden = align({managed(kLeaf), managed(kMain), native(0x2)}, nullptr, kUnhooked);
  EXPECT_EQ(hidden.outcome, Outcome::kNoHookedFrame);
  EXPECT_EQ(hidden.above, 2u);
  EXPECT_EQ(hidden.leaf_caller, kUnhooked);
  EXPECT_EQ(align({managed(kLeaf), managed(kUnhooked), managed(kMain)}, nullptr, kUnhooked).leaf_caller, 0u);
  EXPECT_EQ(align({native(0x1), managed(kLeaf), managed(kMain)}, nullptr, kUnhooked).leaf_caller, 0u);
  EXPECT_EQ(align({managed(kLeaf), managed(kMain)}, nullptr, 0).leaf_caller, 0u);
}

// The markers of the tree's limits are not methods: a stack under them is not placed above them.
TEST(SignalStackAlignment, TheTreesLimitMarkersAreNotHookedFrames) {
  Shadow s;
  CallNode full{kTreeFullFunction, &s.hooked};
  auto at = align({managed(kLeaf), managed(kHooked), managed(kMain)}, &full);
  EXPECT_EQ(at.outcome, Outcome::kNoHookedFrame);
}

}  // namespace
}  // namespace umbra
