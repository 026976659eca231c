// Where a stack taken by signal meets the shadow stack of the same instant (shadow mode), and the frames it finds
// between hooked frames.
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

// The votes a stack gives: for each node, whether it was seen with a run, and the run's frames (root first).
struct Votes {
  SpliceMap map;
  std::vector<SampleFrame> run;
  void of(const std::vector<SampleFrame>& leaf_first, const CallNode* node, size_t at, bool reaches_start = true) {
    vote_splices(map, leaf_first.data(), leaf_first.size(), node, at, reaches_start, run);
  }
  const RememberedSplice* at(const CallNode& node) const {
    auto it = map.find(&node);
    return it == map.end() ? nullptr : &it->second;
  }
};

// Hooked <- qsort's frames <- Main <- a native thread start: Hooked votes for qsort's frames, Main for its start.
TEST(SignalStackSplices, EachHookedNodeVotesForTheNativeFramesBelowIt) {
  Shadow s;
  Votes v;
  v.of({native(0x1), managed(kHooked), native(0x3), native(0x4), managed(kMain), native(0x5), native(0x6)}, &s.hooked,
       1);
  ASSERT_NE(v.at(s.hooked), nullptr);
  EXPECT_EQ(v.at(s.hooked)->frames, (std::vector<SampleFrame>{native(0x4), native(0x3)}));
  EXPECT_TRUE(v.at(s.hooked)->shown());
  ASSERT_NE(v.at(s.main), nullptr);
  EXPECT_EQ(v.at(s.main)->frames, (std::vector<SampleFrame>{native(0x6), native(0x5)}));
  v.of({managed(kHooked), managed(kMain), native(0x5)}, &s.hooked, 0);
  v.of({managed(kHooked), managed(kMain), native(0x5)}, &s.hooked, 0);
  EXPECT_EQ(v.at(s.hooked)->seen_with, 1u);
  EXPECT_EQ(v.at(s.hooked)->seen_without, 2u);
  EXPECT_FALSE(v.at(s.hooked)->shown());
}

// A managed frame where the parent's should be (a method without hooks) ends the votes; so does a stack that did not
// reach its thread's start, for the outermost node; and a node whose frame is not where it was said to be votes not.
TEST(SignalStackSplices, WhatTheStackDoesNotShowForCertainGetsNoVote) {
  Shadow s;
  Votes v;
  v.of({managed(kHooked), native(0x3), managed(kUnhooked), managed(kMain), native(0x5)}, &s.hooked, 0);
  EXPECT_TRUE(v.map.empty());
  v.of({managed(kHooked), native(0x3), managed(kMain), native(0x5)}, &s.hooked, 0, false);
  EXPECT_NE(v.at(s.hooked), nullptr);
  EXPECT_EQ(v.at(s.main), nullptr);
  v.map.clear();
  v.of({managed(kLeaf), managed(kMain), native(0x5)}, &s.hooked, 0);
  v.of({native(0x1), managed(kMain), native(0x5)}, &s.main, 0);
  EXPECT_TRUE(v.map.empty());
  CallNode full{kTreeFullFunction, &s.hooked};
  v.of({managed(kLeaf), managed(kHooked), managed(kMain)}, &full, 0);
  EXPECT_TRUE(v.map.empty());
}

}  // namespace
}  // namespace umbra
