#include "hooks/thread_shadow.h"

#include <gtest/gtest.h>

#include "shadow_limits.h"

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace umbra {
namespace {

using testing::small_limits;

constexpr clr::FunctionID A = 0xA, B = 0xB, C = 0xC, D = 0xD;

// The functions on the path from the root to `node`, outermost first.
std::vector<clr::FunctionID> path_of(const CallNode* node) {
  std::vector<clr::FunctionID> path;
  for (; node && node->parent; node = node->parent) path.insert(path.begin(), node->function);
  return path;
}

void enter_all(ThreadShadow& s, std::initializer_list<clr::FunctionID> path) {
  for (clr::FunctionID f : path) s.enter(f, 0);
}

const CallNode* child(const CallNode& parent, clr::FunctionID f) {
  for (const CallNode* c = parent.first_child_acquire(); c; c = c->next_sibling)
    if (c->function == f) return c;
  return nullptr;
}

TEST(ThreadShadow, PushPopBuildsExactCounts) {
  ThreadShadow s(small_limits());
  uint64_t t = 100;
  s.enter(A, t++);
  for (int i = 0; i < 5; ++i) {
    s.enter(B, t++);
    s.leave(B, t++);
  }
  s.enter(C, t++);
  EXPECT_EQ(s.depth(), 2u);
  EXPECT_EQ(path_of(s.current_node()), (std::vector<clr::FunctionID>{A, C}));
  s.leave(C, t++);
  s.leave(A, t++);
  EXPECT_EQ(s.depth(), 0u);
  EXPECT_EQ(s.current_node(), &s.root());
  const CallNode* a = child(s.root(), A);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->calls(), 1u);
  EXPECT_EQ(child(*a, B)->calls(), 5u);
  EXPECT_EQ(child(*a, C)->calls(), 1u);
  EXPECT_EQ(a->total_ticks(), 13u);  // entered at 100, left at 113
  EXPECT_EQ(child(*a, B)->total_ticks(), 5u);
  EXPECT_EQ(s.enters(), 7u);
  EXPECT_EQ(s.leaves(), 7u);
}

TEST(ThreadShadow, RecursionMakesOneNodePerDepth) {
  ThreadShadow s(small_limits());
  for (int i = 0; i < 10; ++i) s.enter(A, 0);
  for (int i = 0; i < 10; ++i) s.leave(A, 0);
  const CallNode* n = &s.root();
  for (int i = 0; i < 10; ++i) {
    n = child(*n, A);
    ASSERT_NE(n, nullptr);
    EXPECT_EQ(n->calls(), 1u);
  }
  EXPECT_EQ(n->first_child_acquire(), nullptr);
}

TEST(ThreadShadow, TailcallPopsTheCallerAndMarksTheCallee) {
  ThreadShadow s(small_limits());
  enter_all(s, {A, B});
  s.tailcall(B, 0);  // B tail-calls C: B's frame is replaced
  s.enter(C, 0);
  EXPECT_EQ(path_of(s.current_node()), (std::vector<clr::FunctionID>{A, C}));
  s.leave(C, 0);
  s.leave(A, 0);
  const CallNode* c = child(*child(s.root(), A), C);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->tail_entries.get(), 1u);
  EXPECT_EQ(child(*child(s.root(), A), B)->tail_entries.get(), 0u);
  EXPECT_EQ(s.tailcalls(), 1u);
  EXPECT_EQ(s.drops(DropReason::kUnmatchedLeave), 0u);
}

TEST(ThreadShadow, TailEntryMarkIsClearedByALeave) {
  ThreadShadow s(small_limits());
  enter_all(s, {A, B});
  s.tailcall(B, 0);  // the callee has no hooks: the next event is A's leave
  s.leave(A, 0);
  s.enter(C, 0);
  s.leave(C, 0);
  EXPECT_EQ(child(s.root(), C)->tail_entries.get(), 0u);
}

TEST(ThreadShadow, OverflowIsCountedAndTheStackRecovers) {
  ThreadShadow s(small_limits(/*depth=*/16));
  const uint32_t total = 5000;
  for (uint32_t i = 0; i < total; ++i) s.enter(A, 0);
  uint32_t recorded = s.depth();
  EXPECT_EQ(recorded, 16u);
  EXPECT_EQ(s.drops(DropReason::kStackOverflow), total - recorded);
  // The deepest recorded frame carries a marker counting the calls below it.
  const CallNode* deepest = s.current_node();
  const CallNode* marker = child(*deepest, kDeeperCallsFunction);
  ASSERT_NE(marker, nullptr);
  EXPECT_EQ(marker->calls(), total - recorded);
  for (uint32_t i = 0; i < total; ++i) s.leave(A, 0);
  EXPECT_EQ(s.depth(), 0u);
  EXPECT_EQ(s.drops(DropReason::kUnmatchedLeave), 0u);
  s.enter(B, 0);
  EXPECT_EQ(path_of(s.current_node()), (std::vector<clr::FunctionID>{B}));
}

TEST(ThreadShadow, UnwindPopsTheNamedFrame) {
  ThreadShadow s(small_limits());
  enter_all(s, {A, B, C});
  s.exception_thrown();
  s.catcher_found();
  EXPECT_FALSE(s.unwind_enter(C));
  s.unwind_leave(0);
  EXPECT_FALSE(s.unwind_enter(B));
  s.unwind_leave(0);
  EXPECT_FALSE(s.unwind_enter(A));  // the catcher: unwind enter, then it resumes
  s.catcher_enter(A, 0);
  EXPECT_EQ(path_of(s.current_node()), (std::vector<clr::FunctionID>{A}));
  s.enter(D, 0);
  EXPECT_EQ(path_of(s.current_node()), (std::vector<clr::FunctionID>{A, D}));
  EXPECT_EQ(s.unwinds(), 2u);
}

// Focused shadow mode: an exception also unwinds frames without hooks (E below); their unwinds match no shadow frame
// and are expected. With every method hooked the same unwind is a leave that went astray, and is counted.
TEST(ThreadShadow, UnwindsOfFramesWithoutHooksAreExpectedOnlyWhenNotEveryMethodIsHooked) {
  constexpr clr::FunctionID E = 0xE;
  for (bool every_method_hooked : {false, true}) {
    ShadowLimits limits = small_limits();
    limits.every_method_hooked = every_method_hooked;
    ThreadShadow s(limits);
    enter_all(s, {A, B});  // A calls E (no hooks), which calls B
    s.exception_thrown();
    s.catcher_found();
    s.unwind_enter(B);
    s.unwind_leave(0);
    s.unwind_enter(E);
    s.unwind_leave(0);
    s.unwind_enter(A);
    s.catcher_enter(A, 0);
    EXPECT_EQ(path_of(s.current_node()), (std::vector<clr::FunctionID>{A}));
    EXPECT_EQ(s.drops(DropReason::kUnmatchedLeave), every_method_hooked ? 1u : 0u) << every_method_hooked;
  }
}

TEST(ThreadShadow, AnUnwindWithoutACatcherPastTheBottomFrameIsReportedOnce) {
  ThreadShadow s(small_limits());
  enter_all(s, {A, B});
  s.exception_thrown();
  s.search_enter(B);
  s.search_enter(A);  // the thread's bottom frame: nothing below can catch
  EXPECT_TRUE(s.unwind_enter(B));
  s.unwind_leave(0);
  EXPECT_FALSE(s.unwind_enter(A));
}

TEST(ThreadShadow, ASearchThatStopsShortOfTheBottomIsCaughtByTheRuntime) {
  // e.g. a type initializer that throws: runtime code above the bottom frame catches it.
  ThreadShadow s(small_limits());
  enter_all(s, {A, B, C});
  s.exception_thrown();
  s.search_enter(C);
  EXPECT_FALSE(s.unwind_enter(C));
  s.unwind_leave(0);
  EXPECT_EQ(path_of(s.current_node()), (std::vector<clr::FunctionID>{A, B}));
}

TEST(ThreadShadow, NestedUnwindsEachPopTheirOwnFrame) {
  // A throws out of C; C's finally calls D, which calls E; E throws and D catches; then C's unwind completes.
  ThreadShadow s(small_limits());
  enter_all(s, {A, B, C});
  s.exception_thrown();
  s.catcher_found();
  EXPECT_FALSE(s.unwind_enter(C));  // outer unwind of C begins; its finally runs
  enter_all(s, {D, 0xE});
  s.exception_thrown();
  s.unwind_leave(0);                 // the stray leave that follows a managed throw
  s.catcher_found();
  s.unwind_enter(0xE);
  s.unwind_leave(0);                 // E unwound
  s.unwind_enter(D);                 // D is the catcher: unwind enter, no leave
  s.catcher_enter(D, 0);
  s.leave(D, 0);                     // the finally's call returns
  s.unwind_leave(0);                 // the outer unwind pops C, not D
  EXPECT_EQ(path_of(s.current_node()), (std::vector<clr::FunctionID>{A, B}));
  EXPECT_EQ(s.drops(DropReason::kUnmatchedLeave), 0u);
  EXPECT_EQ(s.drops(DropReason::kStaleFramePopped), 0u);
}

TEST(ThreadShadow, DuplicateUnwindLeaveDoesNotPopTheCaller) {
  ThreadShadow s(small_limits());
  enter_all(s, {A, B});
  s.unwind_enter(B);
  s.unwind_leave(0);
  s.unwind_leave(0);  // a duplicate, with no unwind enter before it
  EXPECT_EQ(path_of(s.current_node()), (std::vector<clr::FunctionID>{A}));
}

TEST(ThreadShadow, AnUnwindThatNativeCodeCutShortIsForgotten) {
  // A type initializer C throws: its unwind enter comes, then runtime code catches and a new exception unwinds
  // from B, below it. C's unwind never gets a leave and must not consume a later one.
  ThreadShadow s(small_limits());
  enter_all(s, {A, B, C});
  s.exception_thrown();
  s.unwind_enter(C);
  s.exception_thrown();  // thrown by the runtime: no stray leave
  s.unwind_enter(B);
  s.unwind_leave(0);
  s.unwind_enter(A);
  s.catcher_enter(A, 0);
  EXPECT_EQ(path_of(s.current_node()), (std::vector<clr::FunctionID>{A}));
  s.enter(D, 0);
  s.exception_thrown();
  s.unwind_leave(0);  // stray
  s.unwind_enter(D);
  s.unwind_leave(0);
  EXPECT_EQ(path_of(s.current_node()), (std::vector<clr::FunctionID>{A}));
  EXPECT_EQ(s.drops(DropReason::kUnmatchedLeave), 0u);
}

TEST(ThreadShadow, DotNet8EndsAnUnhandledSearchWithNoUnwind) {
  ThreadShadow s(small_limits());
  enter_all(s, {A, B});
  s.exception_thrown();
  s.search_enter(B);
  EXPECT_FALSE(s.search_leave());
  s.search_enter(A);  // the bottom frame, no catcher: the process ends after this leave
  EXPECT_TRUE(s.search_leave());
  EXPECT_FALSE(s.unwind_enter(B));  // said once

  s.exception_thrown();  // caught by the bottom frame itself
  s.search_enter(A);
  s.catcher_found();
  EXPECT_FALSE(s.search_leave());
}

TEST(ThreadShadow, AnExceptionSwallowedInsideAFilterLeavesTheFiltersMethodOnTheStack) {
  // .NET 8: B's filter (a funclet of B, run on top of the stack) calls D, which throws; the runtime swallows it,
  // unwinding D and "B" (the funclet). The outer exception then unwinds C and B and A catches.
  ThreadShadow s(small_limits());
  enter_all(s, {A, B, C});
  s.exception_thrown();
  s.search_enter(C);
  s.search_enter(B);
  s.filter_enter(B);
  s.enter(D, 0);
  s.exception_thrown();
  s.search_enter(D);
  s.search_enter(B);  // the funclet, not a frame below
  EXPECT_FALSE(s.unwind_enter(D));
  s.unwind_leave(0);
  EXPECT_FALSE(s.unwind_enter(B));
  s.unwind_leave(0);  // the funclet's frame: B's real frame stays
  s.filter_leave();
  EXPECT_EQ(path_of(s.current_node()), (std::vector<clr::FunctionID>{A, B, C}));
  s.search_enter(A);
  s.catcher_found();
  s.unwind_enter(C);
  s.unwind_leave(0);
  s.unwind_enter(B);
  s.unwind_leave(0);
  s.unwind_enter(A);
  s.catcher_enter(A, 0);
  EXPECT_EQ(path_of(s.current_node()), (std::vector<clr::FunctionID>{A}));
  EXPECT_EQ(s.drops(DropReason::kUnmatchedLeave), 0u);
  EXPECT_EQ(s.drops(DropReason::kStaleFramePopped), 0u);
}

TEST(ThreadShadow, DotNet9SecondPassRunsAboveTheFramesItUnwinds) {
  // C throws through B to A, which catches. The dispatch (X, Y: entered by the throw, never returning) runs the
  // second pass in managed code above the frames, calling N, from inside which each unwind is reported.
  constexpr clr::FunctionID X = 0x10, Y = 0x11, N = 0x12;
  ThreadShadow s(small_limits());
  enter_all(s, {A, B, C, X, Y});
  s.exception_thrown();
  s.search_enter(C);
  s.search_enter(B);
  s.search_enter(A);
  s.catcher_found();
  EXPECT_FALSE(s.unwind_enter(C));
  s.enter(N, 0);
  s.unwind_leave(0);  // C stays under the dispatch, unwound
  EXPECT_FALSE(s.unwind_enter(B));
  s.leave(N, 0);      // the dispatch's own call returns where it was made
  EXPECT_EQ(path_of(s.current_node()), (std::vector<clr::FunctionID>{A, B, C, X, Y}));
  s.enter(N, 0);
  s.unwind_leave(0);
  s.leave(N, 0);
  EXPECT_FALSE(s.unwind_enter(A));
  s.catcher_enter(A, 0);  // the catch resumes in A: the unwound frames go with the dispatch's
  EXPECT_EQ(path_of(s.current_node()), (std::vector<clr::FunctionID>{A}));
  EXPECT_EQ(s.drops(DropReason::kUnmatchedLeave), 0u);
  EXPECT_EQ(s.drops(DropReason::kStaleFramePopped), 0u);
  EXPECT_EQ(s.unwinds(), 2u);
}

TEST(ThreadShadow, DotNet9UnwoundFramesAreSkippedWhenTheSameMethodCatchesBelow) {
  // Recursion: A(2) catches what A(0) threw through A(1), with the dispatch (X) above them all.
  constexpr clr::FunctionID X = 0x10;
  ThreadShadow s(small_limits());
  s.enter(B, 0);
  for (int i = 0; i < 3; ++i) s.enter(A, 0);
  s.enter(X, 0);
  s.exception_thrown();
  s.catcher_found();
  s.unwind_enter(A);
  s.unwind_leave(0);
  s.unwind_enter(A);
  s.unwind_leave(0);
  s.unwind_enter(A);
  s.catcher_enter(A, 0);
  EXPECT_EQ(path_of(s.current_node()), (std::vector<clr::FunctionID>{B, A}));
  EXPECT_EQ(s.drops(DropReason::kStaleFramePopped), 0u);
  s.leave(A, 0);
  s.leave(B, 0);
  EXPECT_EQ(s.depth(), 0u);
  EXPECT_EQ(s.drops(DropReason::kUnmatchedLeave), 0u);
}

TEST(ThreadShadow, CatcherPopsFramesThatNeverReturn) {
  ThreadShadow s(small_limits());
  s.enter(A, 0);
  s.enter(B, 0);  // e.g. the runtime's own exception dispatch methods, left by no hook
  s.enter(C, 0);
  s.catcher_enter(A, 0);
  EXPECT_EQ(path_of(s.current_node()), (std::vector<clr::FunctionID>{A}));
  EXPECT_EQ(s.drops(DropReason::kStaleFramePopped), 2u);
}

TEST(ThreadShadow, LeaveOfADeeperFramePopsStaleFramesAbove) {
  ThreadShadow s(small_limits());
  enter_all(s, {A, B, C});
  s.leave(B, 0);  // C's leave never came
  EXPECT_EQ(path_of(s.current_node()), (std::vector<clr::FunctionID>{A}));
  EXPECT_EQ(s.drops(DropReason::kStaleFramePopped), 1u);
  s.leave(D, 0);  // not on the stack at all
  EXPECT_EQ(s.drops(DropReason::kUnmatchedLeave), 1u);
  EXPECT_EQ(path_of(s.current_node()), (std::vector<clr::FunctionID>{A}));
}

TEST(ThreadShadow, FullTreeCollectsCallsUnderOneNode) {
  ThreadShadow s(small_limits(64, /*node_bytes=*/kNodeBytes * 3));
  // Fill the reservation with distinct children of A.
  s.enter(A, 0);
  clr::FunctionID f = 0x1000;
  while (s.drops(DropReason::kTreeFull) == 0) {
    s.enter(f, 0);
    s.leave(f, 0);
    ++f;
  }
  s.enter(B, 10);
  EXPECT_EQ(s.current_node()->function, kTreeFullFunction);
  s.enter(C, 20);  // nested calls past the limit land on the same collector
  s.leave(C, 80);
  s.leave(B, 90);
  EXPECT_EQ(path_of(s.current_node()), (std::vector<clr::FunctionID>{A}));
  EXPECT_EQ(s.drops(DropReason::kUnmatchedLeave), 0u);
  const CallNode* collector = child(s.root(), kTreeFullFunction);
  ASSERT_NE(collector, nullptr);
  EXPECT_EQ(collector->calls(), 3u);  // the call that found the space full, B and C
  EXPECT_EQ(collector->total_ticks(), 0u);  // its time stays in A: nothing is counted twice
}

// Real call trees have nodes with hundreds of children: each is found again, whatever the order, without walking
// its siblings, and none is made twice.
TEST(ThreadShadow, WideNodesFindEachChildOnceWithoutWalkingTheSiblings) {
  ThreadShadow s(small_limits(64, size_t(8) << 20));
  constexpr clr::FunctionID kFirst = 0x1000;
  constexpr int kParents = 20, kChildren = 600;  // 12,000 indexed children: the index grows several times
  s.enter(A, 0);
  for (int round = 0; round < 3; ++round) {
    for (int p = 0; p < kParents; ++p) {
      s.enter(kFirst + p, 0);
      for (int i = 0; i < kChildren; ++i) {
        clr::FunctionID f = kFirst + 0x10000 + (round == 1 ? kChildren - 1 - i : (i * 7) % kChildren);
        s.enter(f, 0);
        s.enter(B, 0);  // moves the parent's last-entered child away from f
        s.leave(B, 0);
        s.leave(f, 0);
      }
      s.leave(kFirst + p, 0);
    }
  }
  s.leave(A, 0);
  const CallNode* a = child(s.root(), A);
  for (int p = 0; p < kParents; ++p) {
    const CallNode* parent = child(*a, kFirst + p);
    ASSERT_NE(parent, nullptr);
    EXPECT_EQ(parent->children, uint32_t(kChildren));
    for (int i = 0; i < kChildren; i += 97) EXPECT_EQ(child(*parent, kFirst + 0x10000 + i)->calls(), 3u);
  }
  EXPECT_EQ(s.node_count(), 1u + kParents + kParents * kChildren * 2);  // A, the parents, each child and its B
  EXPECT_GE(s.indexed_searches(), uint64_t(2) * kParents * kChildren);   // every search after the first round
  EXPECT_LT(s.sibling_steps(), uint64_t(4) * kParents * kChildren);      // a list walk of the whole row is 600
  EXPECT_EQ(s.drops(DropReason::kTreeFull), 0u);
}

// A method calling the same few others in turn: once the order has been seen, each call's node is the successor
// of the one that returned before it, and no child is searched for.
TEST(ThreadShadow, CallsInARepeatedOrderNeedNoSearch) {
  ThreadShadow s(small_limits());
  auto round = [&] {
    for (clr::FunctionID f : {B, C, D}) {
      s.enter(f, 0);
      s.leave(f, 0);
    }
  };
  s.enter(A, 0);
  round();
  round();
  uint64_t searches = s.child_searches();
  for (int i = 0; i < 98; ++i) round();
  EXPECT_EQ(s.child_searches(), searches);
  s.leave(A, 0);
  const CallNode* a = child(s.root(), A);
  for (clr::FunctionID f : {B, C, D}) EXPECT_EQ(child(*a, f)->calls(), 100u);
}

// A tail call is a return too: the callee that follows it is found as the tail caller's successor. Two methods
// under one parent that each tail-call another would otherwise take turns in the parent's last-entered child and
// search for the callee at every call.
TEST(ThreadShadow, CalleesOfTailCallsInARepeatedOrderNeedNoSearch) {
  constexpr clr::FunctionID E = 0xE;
  ThreadShadow s(small_limits());
  auto round = [&] {
    for (auto [caller, callee] : {std::pair{B, C}, std::pair{D, E}}) {
      s.enter(caller, 0);
      s.tailcall(caller, 0);
      s.enter(callee, 0);
      s.leave(callee, 0);
    }
  };
  s.enter(A, 0);
  round();
  round();
  uint64_t searches = s.child_searches();
  for (int i = 0; i < 98; ++i) round();
  EXPECT_EQ(s.child_searches(), searches);
  s.leave(A, 0);
  const CallNode* a = child(s.root(), A);
  for (clr::FunctionID f : {B, C, D, E}) EXPECT_EQ(child(*a, f)->calls(), 100u);
  for (clr::FunctionID f : {C, E}) EXPECT_EQ(child(*a, f)->tail_entries.get(), 100u);
}

// The assembly fast path reads and writes the hot state at the shadow's own address.
TEST(ThreadShadow, TheHotStateIsAtTheShadowsAddress) {
  ThreadShadow s(small_limits());
  EXPECT_EQ(static_cast<const void*>(&s.hot_state()), static_cast<const void*>(&s));
}

// The node memory is shared: what one thread's tree took, another's cannot, and each is cut where the budget ran out.
TEST(ThreadShadow, ThreadsShareOneNodeBudget) {
  NodeBudget budget(size_t(3) << 20);  // three chunks of a megabyte
  ThreadShadow big(small_limits(64, size_t(8) << 20), &budget), small(small_limits(64, size_t(8) << 20), &budget);
  auto fill = [](ThreadShadow& s, clr::FunctionID first, int calls) {
    s.enter(A, 0);
    for (clr::FunctionID f = first; f < first + calls; ++f) {
      s.enter(f, 0);
      s.leave(f, 0);
    }
    s.leave(A, 0);
  };
  fill(small, 0x1000, 10);     // takes one chunk
  fill(big, 0x100000, 40000);  // would need 3.5 MB: gets the two chunks left
  EXPECT_EQ(budget.left(), 0u);
  EXPECT_GT(big.drops(DropReason::kTreeFull), 0u);
  EXPECT_LE(big.node_bytes(), size_t(2) << 20);
  EXPECT_GT(big.node_bytes(), (size_t(2) << 20) - kNodeBytes * 2);
  EXPECT_EQ(small.drops(DropReason::kTreeFull), 0u);
  fill(small, 0x1000, 10);  // the paths it has cost nothing more
  EXPECT_EQ(small.drops(DropReason::kTreeFull), 0u);
  fill(small, 0x2000, 1);  // a new path still fits in the chunk it holds
  EXPECT_EQ(small.node_count(), 12u);
  EXPECT_EQ(small.drops(DropReason::kTreeFull), 0u);
}

TEST(ThreadShadow, OpenFramesAreVisibleToReaders) {
  ThreadShadow s(small_limits());
  s.enter(A, 10);
  s.enter(B, 20);
  uint64_t open_a = 0, open_b = 0;
  s.for_each_open_frame(50, [&](const CallNode* n, uint64_t ticks) {
    (n->function == A ? open_a : open_b) += ticks;
  });
  EXPECT_EQ(open_a, 40u);
  EXPECT_EQ(open_b, 30u);
}

}  // namespace
}  // namespace umbra
