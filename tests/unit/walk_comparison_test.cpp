// A stack taken by signal against DoStackSnapshot's walk of the same moment.
#include "sampler/walk_comparison.h"

#include <gtest/gtest.h>

#include <vector>

namespace umbra {
namespace {

SampleFrame managed(uintptr_t f) { return {f, false}; }
SampleFrame native(uintptr_t ip) { return {ip, true}; }

WalkComparison compare(const std::vector<SampleFrame>& snapshot, const std::vector<SampleFrame>& signal) {
  return compare_walks(snapshot.data(), snapshot.size(), signal.data(), signal.size());
}

// Leaf first: Leaf <- Caller <- Run <- Main
const std::vector<SampleFrame> kSnapshot{managed(4), managed(3), managed(2), managed(1)};

TEST(WalkComparison, TheSameManagedFramesAgreeWhateverTheNativeOnes) {
  // The signal walk of a suspended thread has the runtime's wait on top, and native frames of its own.
  auto c = compare(kSnapshot, {native(0x10), native(0x11), managed(4), managed(3), native(0x12), managed(2),
                               managed(1), native(0x13)});
  EXPECT_FALSE(c.differs);
  EXPECT_EQ(c.frames, 4u);
  EXPECT_EQ(c.agreed, 4u);
}

TEST(WalkComparison, AFramelessLeafsCallerIsNamed) {
  auto c = compare(kSnapshot, {managed(4), managed(2), managed(1)});
  EXPECT_TRUE(c.differs);
  EXPECT_EQ(c.difference, WalkDifference::kMissingLeafCaller);
  EXPECT_EQ(c.agreed, 3u);
}

TEST(WalkComparison, FramesSkippedFurtherDownAreMissingFrames) {
  auto c = compare(kSnapshot, {managed(4), managed(3), managed(1)});
  EXPECT_EQ(c.difference, WalkDifference::kMissingFrames);
  EXPECT_EQ(c.agreed, 3u);
  // A chain that went astray: nothing in common past the root.
  auto astray = compare(kSnapshot, {managed(9), managed(8), managed(1)});
  EXPECT_EQ(astray.difference, WalkDifference::kMissingFrames);
  EXPECT_EQ(astray.agreed, 1u);
}

TEST(WalkComparison, ASignalWalkEndingBelowTheLeafMissesTheLeaf) {
  auto c = compare(kSnapshot, {managed(2), managed(1)});
  EXPECT_EQ(c.difference, WalkDifference::kMissingLeaf);
  EXPECT_EQ(c.agreed, 2u);
  EXPECT_EQ(compare(kSnapshot, {}).agreed, 0u);
}

TEST(WalkComparison, FramesOnlyTheSignalWalkHasAreExtra) {
  auto inner = compare(kSnapshot, {managed(4), managed(3), managed(3), managed(2), managed(1)});
  EXPECT_EQ(inner.difference, WalkDifference::kExtraFrames);
  EXPECT_EQ(inner.agreed, 4u);
  auto on_top = compare(kSnapshot, {managed(5), managed(4), managed(3), managed(2), managed(1)});
  EXPECT_EQ(on_top.difference, WalkDifference::kExtraFrames);
  EXPECT_EQ(on_top.agreed, 4u);
}

WalkComparison differing(WalkDifference d) {
  WalkComparison c;
  c.differs = true;
  c.difference = d;
  return c;
}

// Three checks in a row whose stacks by signal lost frames below the leaf (or faulted) send the thread to snapshot
// walks; an agreeing check starts the run again; differences that the check's own suspension causes, or that say
// nothing of the chain, neither count nor break the run.
TEST(WalkComparison, AThreadFallsBackAfterThreeChecksInARowThatLostFrames) {
  uint32_t in_a_row = 0;
  EXPECT_FALSE(check_says_fall_back(differing(WalkDifference::kMissingFrames), in_a_row));
  EXPECT_FALSE(check_says_fall_back(differing(WalkDifference::kFaulted), in_a_row));
  EXPECT_FALSE(check_says_fall_back(WalkComparison{}, in_a_row));  // agreed
  EXPECT_EQ(in_a_row, 0u);
  EXPECT_FALSE(check_says_fall_back(differing(WalkDifference::kMissingFrames), in_a_row));
  for (WalkDifference d : {WalkDifference::kMissingLeaf, WalkDifference::kMissingLeafCaller,
                           WalkDifference::kExtraFrames, WalkDifference::kTruncated, WalkDifference::kNoAnswer,
                           WalkDifference::kLoaderBusy, WalkDifference::kSignalBlocked})
    EXPECT_FALSE(check_says_fall_back(differing(d), in_a_row)) << kWalkDifferenceNames[size_t(d)];
  EXPECT_EQ(in_a_row, 1u);
  EXPECT_FALSE(check_says_fall_back(differing(WalkDifference::kMissingFrames), in_a_row));
  EXPECT_TRUE(check_says_fall_back(differing(WalkDifference::kMissingFrames), in_a_row));
}

}  // namespace
}  // namespace umbra
