#include "merge/reconcile.h"

#include <gtest/gtest.h>

#include "shadow_limits.h"

#include <vector>

namespace umbra {
namespace {

using testing::small_limits;

constexpr clr::FunctionID MAIN = 0x10, A = 0x11, B = 0x12, C = 0x13, STUB = 0x99;

struct Fixture {
  ThreadShadow shadow{small_limits()};
  std::vector<SampleFrame> root_first = std::vector<SampleFrame>(64);
  std::vector<Splice> splices = std::vector<Splice>(16);
  std::vector<SampleFrame> splice_frames = std::vector<SampleFrame>(64);
  ReconcileScratch scratch{root_first.data(), root_first.size(), splices.data(), splices.size(), 0,
                           splice_frames.data(), splice_frames.size(), 0};
  std::vector<clr::FunctionID> invisible;
  bool complete = true;
  // Recorded runs with frames in them (a run of 0 frames is a vote for "nothing between").
  size_t runs() const {
    size_t n = 0;
    for (size_t i = 0; i < scratch.splice_count; ++i) n += splices[i].count > 0;
    return n;
  }
  const Splice& first_run() const {
    for (size_t i = 0; i < scratch.splice_count; ++i)
      if (splices[i].count > 0) return splices[i];
    return splices[0];
  }

  void enter(std::initializer_list<clr::FunctionID> fs) {
    for (auto f : fs) shadow.enter(f, 0);
  }
  // The snapshot root first; align() wants it leaf first, as the walk produces it.
  ReconcileOutcome align_with(std::vector<SampleFrame> root_first_snapshot) {
    std::vector<SampleFrame> leaf_first(root_first_snapshot.rbegin(), root_first_snapshot.rend());
    return align(shadow, leaf_first.data(), leaf_first.size(), complete, scratch, invisible, 100);
  }
};

SampleFrame m(clr::FunctionID f) { return {f, false}; }
SampleFrame n(uintptr_t ip) { return {ip, true}; }

TEST(Reconcile, IdenticalStacksMatchFrameForFrame) {
  Fixture f;
  f.enter({MAIN, A, B});
  ReconcileOutcome o = f.align_with({n(0x1), n(0x2), m(MAIN), m(A), m(B)});  // host frames below Main
  EXPECT_FALSE(o.unexplained);
  EXPECT_EQ(o.counts.frames_compared, 3u);
  EXPECT_EQ(o.counts.spliced[size_t(ReconcileSplice::kNativeSegment)], 0u);
  EXPECT_EQ(f.runs(), 0u);
  EXPECT_EQ(f.scratch.splice_count, 2u) << "A and B each vote for nothing between them and their parent";
}

TEST(Reconcile, NativeFramesBetweenManagedOnesAreSplicedAboveTheCallee) {
  Fixture f;
  f.enter({MAIN, A, B});  // A -> native -> native -> B (a callback)
  ReconcileOutcome o = f.align_with({m(MAIN), m(A), n(0xAA), n(0xBB), m(B)});
  EXPECT_FALSE(o.unexplained);
  EXPECT_EQ(o.counts.frames_compared, 3u);
  EXPECT_EQ(o.counts.spliced[size_t(ReconcileSplice::kNativeSegment)], 1u);
  ASSERT_EQ(f.runs(), 1u);
  EXPECT_EQ(f.first_run().node, f.shadow.frame_node(2));  // above B, below A
  ASSERT_EQ(f.first_run().count, 2u);
  EXPECT_EQ(f.splice_frames[f.first_run().first].id, 0xAAu);
  EXPECT_TRUE(f.first_run().native);
}

TEST(Reconcile, ShadowFramesAboveTheRealTopAreRepaired) {
  Fixture f;
  f.enter({MAIN, A, B, C});  // B and C returned without their leaves
  ReconcileOutcome o = f.align_with({m(MAIN), m(A)});
  EXPECT_FALSE(o.unexplained);
  EXPECT_EQ(o.counts.repairs[size_t(ReconcileRepair::kMissedLeave)], 2u);
  EXPECT_EQ(f.shadow.depth(), 2u);
  EXPECT_EQ(f.shadow.current_node(), f.shadow.frame_node(1));
}

TEST(Reconcile, FramesSnapshotsCannotShowAreNeverRepaired) {
  // An exception being dispatched: the runtime's EH methods have hooks but never appear in a snapshot.
  Fixture f;
  f.invisible = {STUB};
  f.enter({MAIN, A, STUB});
  ReconcileOutcome o = f.align_with({m(MAIN), m(A)});
  EXPECT_FALSE(o.unexplained);
  EXPECT_EQ(o.counts.repairs[size_t(ReconcileRepair::kMissedLeave)], 0u);
  EXPECT_EQ(o.counts.kept[size_t(ReconcileKept::kInvisibleFrame)], 1u);
  EXPECT_EQ(f.shadow.depth(), 3u);
  // ... and one in the middle is stepped over.
  Fixture g;
  g.invisible = {STUB};
  g.enter({MAIN, STUB, A});
  ReconcileOutcome p = g.align_with({m(MAIN), m(A)});
  EXPECT_FALSE(p.unexplained);
  EXPECT_EQ(p.counts.frames_compared, 2u);
}

TEST(Reconcile, ManagedFramesTheHooksNeverSawAreSpliced) {
  Fixture f;
  f.enter({MAIN, B});
  ReconcileOutcome o = f.align_with({m(MAIN), m(0x55), m(B)});
  EXPECT_FALSE(o.unexplained);
  EXPECT_EQ(o.counts.spliced[size_t(ReconcileSplice::kUninstrumented)], 1u);
  ASSERT_EQ(f.runs(), 1u);
  EXPECT_FALSE(f.first_run().native);
}

TEST(Reconcile, AWalkThatMissedTheRootJudgesNothing) {
  // Recursion deeper than the walk's buffer: the snapshot holds only the top frames. Aligned from the root, the
  // live frames above would look stale; nothing may be repaired.
  Fixture f;
  f.enter({MAIN, A, A, A, A, A});
  f.complete = false;
  ReconcileOutcome o = f.align_with({m(A), m(A), m(A)});
  EXPECT_FALSE(o.unexplained);
  EXPECT_EQ(o.counts.skipped_truncated, 1u);
  EXPECT_EQ(o.counts.repairs[size_t(ReconcileRepair::kMissedLeave)], 0u);
  EXPECT_EQ(f.shadow.depth(), 6u);
}

TEST(Reconcile, AStaleFrameInTheMiddleIsCountedAndKept) {
  Fixture f;
  f.enter({MAIN, A, B});  // A's leave never came; B was called from Main afterwards
  ReconcileOutcome o = f.align_with({m(MAIN), m(B)});
  EXPECT_FALSE(o.unexplained);
  EXPECT_EQ(o.counts.kept[size_t(ReconcileKept::kStaleMiddleFrame)], 1u);
  EXPECT_EQ(f.shadow.depth(), 3u);
}

TEST(Reconcile, StacksThatShareNothingAreUnexplained) {
  Fixture f;
  f.enter({MAIN, A});
  ReconcileOutcome o = f.align_with({m(0x70), m(0x71)});
  EXPECT_TRUE(o.unexplained);
  EXPECT_EQ(o.counts.unexplained, 1u);
  EXPECT_EQ(f.shadow.depth(), 2u) << "nothing is repaired on a guess";
}

TEST(Reconcile, AThreadInTheMiddleOfAnExceptionIsSkipped) {
  Fixture f;
  f.enter({MAIN, A});
  f.shadow.exception_thrown();
  ReconcileOutcome o = f.align_with({m(MAIN)});
  EXPECT_EQ(o.counts.skipped_exception_in_flight, 1u);
  EXPECT_EQ(o.counts.snapshots, 0u);
  EXPECT_EQ(f.shadow.depth(), 2u);
}

}  // namespace
}  // namespace umbra
