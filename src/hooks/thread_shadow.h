// A managed thread's shadow stack and exact call tree.
//
// Contract:
// - enter/leave/tailcall/unwind_leave are called ONLY by the owning thread, from the ELT hooks and the exception
//   callbacks. They never block, allocate (memory comes from a reservation made at construction), log or throw.
//   The ELT3 assembly fast path (elt3_trampolines.S) does try_enter/try_leave/try_tailcall's common cases itself,
//   on the same fields: what they do, it must do alike.
// - Readers on other threads (report, sampler) use current_node() and depth(): both are published with release
//   stores after the frame they describe is complete, and every node's parent chain is immutable, so the path read
//   from current_node() is never torn. open_frame_ticks() reads frames with relaxed atomics and is exact only while
//   the owner is stopped (SuspendRuntime, or the owner has exited).
// - The object is never freed while a reader may hold it: the ShadowPool keeps every claimed shadow until the pool
//   is destroyed, after the report is written.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <sys/types.h>

#include "clr/corprof.h"
#include "hooks/call_node.h"
#include "hooks/child_index.h"
#include "hooks/drop_reason.h"
#include "hooks/exception_tracking.h"
#include "hooks/node_budget.h"
#include "hooks/owner_counter.h"
#include "hooks/region.h"
#include "hooks/shadow_layout.h"

namespace umbra {

struct ShadowFrame {
  std::atomic<NodeNumber> node;
  std::atomic<uint64_t> start_ticks;
  clr::FunctionID function;  // owner-only; differs from the node's function when the tree is full
};

// The function id of the node that collects calls once a thread's node reservation is exhausted.
inline constexpr clr::FunctionID kTreeFullFunction = ~clr::FunctionID{0};
// The function id of the marker under the deepest recorded frame that counts calls made once the stack was full.
inline constexpr clr::FunctionID kDeeperCallsFunction = ~clr::FunctionID{0} - 1;

// What every enter and leave reads and writes of its thread's shadow, in one cache line at the start of the
// ThreadShadow (tail calls touch a second): the ELT3 assembly fast path reads it at the offsets shadow_layout.h
// names. Written by the owner, and by a reconciliation's repair while the owner is suspended outside any hook;
// other threads read depth, current and the collector's count.
struct alignas(64) ShadowHotState {
  static constexpr uint32_t kNoHint = ~uint32_t{0};
  std::atomic<uint32_t> depth{0};  // published with a release store after the frame below it is complete
  // The assembly fast path may enter below this depth, and leave or tail-call only if it is not 0. It is 0 while
  // anything rare is under way, which the C++ paths handle (frames past the stack's capacity, frames an exception
  // unwound that stay on the stack), and while a tail call's callee is still to enter (the assembly enters it if
  // limit_after_tail allows).
  uint32_t fast_limit = 0;
  ShadowFrame* frames = nullptr;
  HotNode* nodes = nullptr;
  // The frame that last returned or tail-called, valid while the depth is back where it was (any other pop
  // clears it): a loop re-enters its node, a sequence of calls finds the next one as its successor.
  clr::FunctionID hint_function = 0;
  uint32_t hint_depth = kNoHint;
  NodeNumber hint_node = 0;
  std::atomic<NodeNumber> current{0};  // the node on top of the stack; published after depth
  NodeNumber tree_full_node = 0;       // the collector of calls beyond the node limit; 0 (the root) if there is none
  OwnerCounter enters;
  OwnerCounter leaves;
  // The next cache line, which only tail calls and their callees' enters touch.
  alignas(64) OwnerCounter tailcalls;
  bool pending_tail_entry = false;  // the next enter follows a tail call of the caller's frame
  uint32_t limit_after_tail = 0;    // fast_limit once that enter is done
  CallNode* cold_nodes = nullptr;
};

static_assert(sizeof(ShadowHotState) == UMBRA_HOT_STATE_SIZE);
static_assert(offsetof(ShadowHotState, tailcalls) == UMBRA_HOT_TAILCALLS);
static_assert(offsetof(ShadowHotState, pending_tail_entry) == UMBRA_HOT_PENDING_TAIL_ENTRY);
static_assert(offsetof(ShadowHotState, limit_after_tail) == UMBRA_HOT_LIMIT_AFTER_TAIL);
static_assert(offsetof(ShadowHotState, cold_nodes) == UMBRA_HOT_COLD_NODES);
static_assert(sizeof(CallNode) == size_t(1) << UMBRA_COLD_NODE_SHIFT);
static_assert(offsetof(CallNode, tail_entries) == UMBRA_COLD_NODE_TAIL_ENTRIES);
static_assert(offsetof(ShadowHotState, depth) == UMBRA_HOT_DEPTH);
static_assert(offsetof(ShadowHotState, fast_limit) == UMBRA_HOT_FAST_LIMIT);
static_assert(offsetof(ShadowHotState, frames) == UMBRA_HOT_FRAMES);
static_assert(offsetof(ShadowHotState, nodes) == UMBRA_HOT_NODES);
static_assert(offsetof(ShadowHotState, hint_function) == UMBRA_HOT_HINT_FUNCTION);
static_assert(offsetof(ShadowHotState, hint_depth) == UMBRA_HOT_HINT_DEPTH);
static_assert(offsetof(ShadowHotState, hint_node) == UMBRA_HOT_HINT_NODE);
static_assert(offsetof(ShadowHotState, current) == UMBRA_HOT_CURRENT);
static_assert(offsetof(ShadowHotState, tree_full_node) == UMBRA_HOT_TREE_FULL);
static_assert(offsetof(ShadowHotState, enters) == UMBRA_HOT_ENTERS);
static_assert(offsetof(ShadowHotState, leaves) == UMBRA_HOT_LEAVES);
static_assert(sizeof(ShadowFrame) == UMBRA_FRAME_SIZE);
static_assert(offsetof(ShadowFrame, node) == UMBRA_FRAME_NODE);
static_assert(offsetof(ShadowFrame, start_ticks) == UMBRA_FRAME_START);
static_assert(offsetof(ShadowFrame, function) == UMBRA_FRAME_FUNCTION);
static_assert(sizeof(HotNode) == size_t(1) << UMBRA_NODE_SHIFT);
static_assert(offsetof(HotNode, function) == UMBRA_NODE_FUNCTION);
static_assert(offsetof(HotNode, calls) == UMBRA_NODE_CALLS);
static_assert(offsetof(HotNode, total_ticks) == UMBRA_NODE_TICKS);
static_assert(offsetof(HotNode, successor) == UMBRA_NODE_SUCCESSOR);
static_assert(offsetof(HotNode, last_hit) == UMBRA_NODE_LAST_HIT);

struct ShadowLimits {
  uint32_t max_depth = 1u << 16;
  // Node memory of all threads together (NodeBudget); each thread reserves address space for up to this much (at
  // most kMaxNodeReservation), committed only as its tree grows.
  size_t node_bytes = size_t(4096) << 20;
  static constexpr size_t kMaxNodeReservation = size_t(16) << 30;
  // False in focused shadow mode: frames without hooks are unwound too, and their unwinds match no shadow frame.
  bool every_method_hooked = true;
};

class ThreadShadow {
  // First: the assembly fast path finds it at the shadow's own address.
  ShadowHotState hot_;

 public:
  // Nodes are taken from `budget`, shared by every thread's shadow; without one, from this shadow's reservation
  // alone.
  explicit ThreadShadow(const ShadowLimits& limits, NodeBudget* budget = nullptr);
  ThreadShadow(const ThreadShadow&) = delete;
  ThreadShadow& operator=(const ThreadShadow&) = delete;

  // --- owner thread only; hot (inline fast paths below, rare cases out of line) ---
  void enter(clr::FunctionID function, uint64_t now_ticks);
  void leave(clr::FunctionID function, uint64_t now_ticks);
  // The common cases of enter and leave alone: each does its whole work and returns true, or returns false having
  // changed nothing (the caller then calls enter/leave). Always inlined and call-free, so the ELT3 fast path
  // (elt3_fast_path.cpp) can run them without saving the vector registers.
  bool try_enter(clr::FunctionID function, uint64_t now_ticks);
  bool try_leave(clr::FunctionID function, uint64_t now_ticks);
  // The common tail call (the function on top of the stack, no unwound frame kept): tailcall()'s work, or false.
  bool try_tailcall(clr::FunctionID function, uint64_t now_ticks);
  // A fast tail call replaces the caller's frame: pop it like a leave; the next enter is marked as a tail entry.
  void tailcall(clr::FunctionID function, uint64_t now_ticks);
  // Exception callbacks, on the owner thread. A throw starts a search. If the search passed the thread's bottom
  // frame without finding a catcher, the exception is unhandled and the runtime will end the process:
  // unwind_enter() then returns true (once), or search_leave() does where no unwind follows (.NET 8). A search that
  // stops short of the bottom frame without a catcher is caught by runtime code (a type initializer, reflection, a
  // filter) and is not unhandled.
  void exception_thrown() { exception_.thrown(); }
  void search_enter(clr::FunctionID function);
  bool search_leave() { return exception_.search_left(); }
  void catcher_found() { exception_.catcher_found(); }
  // A filter runs as a funclet of its method, on top of the stack: an exception thrown and swallowed inside it
  // unwinds "its method" (with an unwind leave on .NET 8), whose real frame lies below and stays.
  void filter_enter(clr::FunctionID function) { exception_.filter_enter(function); }
  void filter_leave() { exception_.filter_leave(); }
  bool unwind_enter(clr::FunctionID function);
  // Pops the frame the matching unwind_enter named (no leave hook follows an unwind). Unwinds nest: an exception
  // thrown and caught inside a finally unwinds within the outer one. Where frames lie above it (.NET 9 runs the
  // second pass in managed code, above the frames it unwinds, and those calls return after this), the frame stays
  // under them, marked unwound, until the catch pops it with the dispatch's frames.
  void unwind_leave(uint64_t now_ticks);
  // The catching frame resumes: whatever is still above its topmost frame never returns.
  void catcher_enter(clr::FunctionID function, uint64_t now_ticks);

  uint64_t enters() const { return hot_.enters.get(); }
  uint64_t leaves() const { return hot_.leaves.get(); }
  uint64_t tailcalls() const { return hot_.tailcalls.get(); }
  uint64_t unwinds() const { return unwinds_.get(); }
  // How the tree was updated, for the report's "tree" stats: enters the fast path could not take, the searches for
  // a child among its siblings (the last-entered child was another) and the siblings they passed.
  uint64_t slow_enters() const { return slow_enters_.get(); }
  uint64_t child_searches() const { return child_searches_.get(); }
  uint64_t sibling_steps() const { return sibling_steps_.get(); }
  uint64_t indexed_searches() const { return indexed_searches_.get(); }
  uint64_t node_count() const { return node_count_.get(); }
  size_t node_bytes() const { return node_count() * kNodeBytes; }

  // The catch block has finished: the exception is over.
  void catcher_leave() { exception_.caught(); }

  // --- the sampler, only while the owner is stopped (SuspendRuntime: a suspended thread is never inside a hook,
  // and one in native code cannot re-enter managed code until the runtime resumes) ---
  clr::FunctionID frame_function(uint32_t index) const { return hot_.frames[index].function; }
  CallNode* frame_node(uint32_t index) const { return &cold_[hot_.frames[index].node.load(std::memory_order_relaxed)]; }
  // An exception is being dispatched: frames the shadow has already popped may still be on the real stack.
  bool exception_active() const { return exception_.active(); }
  bool overflowed() const { return overflow_depth_ != 0; }
  // Pops frames that are not on the real stack any more (their leave never came).
  void repair_truncate(uint32_t new_depth, uint64_t now_ticks) {
    if (new_depth < hot_.depth.load(std::memory_order_relaxed)) pop_to(new_depth, now_ticks);
  }

  // --- any thread ---
  CallNode* current_node() const { return &cold_[hot_.current.load(std::memory_order_acquire)]; }
  uint32_t depth() const { return hot_.depth.load(std::memory_order_acquire); }
  const CallNode& root() const { return cold_[0]; }
  CallNode& root() { return cold_[0]; }
  // tree_full: the calls the collector node holds, whichever path put them there (the hint re-enters it too).
  uint64_t drops(DropReason reason) const {
    if (reason == DropReason::kTreeFull && hot_.tree_full_node != 0) return hot_.nodes[hot_.tree_full_node].calls.get();
    return drops_[static_cast<size_t>(reason)].get();
  }
  // Ticks spent so far in frames that are still open, per node; calls visit(node, ticks) for each open frame.
  template <typename Visit>
  void for_each_open_frame(uint64_t now_ticks, Visit&& visit) const;

  // Identity, set by ShadowPool::claim before the shadow is published; read-only afterwards.
  pid_t os_tid = 0;
  clr::ThreadID thread_id = 0;
  std::atomic<bool> retired{false};
  std::atomic<ThreadShadow*> next_claimed{nullptr};  // intrusive list of all claimed shadows
  // The thread's CPU time as the sampler last read it: written only by the sampler, read by the report.
  std::atomic<uint64_t> sampler_cpu_ns{0};

  // Where the assembly fast path finds the hot state: at the shadow's own address (a unit test checks it).
  const ShadowHotState& hot_state() const { return hot_; }
  // Whether fast_limit and limit_after_tail say what the state they stand for says (tests check it after every
  // hook: a change that forgets refresh_fast_limit() would let the assembly run where it must not).
  bool fast_limits_current() const {
    uint32_t after_tail = limit_after_tail_now();
    return hot_.limit_after_tail == after_tail && hot_.fast_limit == (hot_.pending_tail_entry ? 0 : after_tail);
  }

  // Releases the frame pages once the owner has exited (its tree stays).
  void discard_frames() { frames_region_.discard_pages(); }

 private:
  // Only after try_enter declined: a full stack, or a call path with no node yet.
  void enter_slow(clr::FunctionID function, uint64_t now_ticks);
  void leave_slow(clr::FunctionID function, uint64_t now_ticks);
  void tailcall_slow(clr::FunctionID function, uint64_t now_ticks);
  void pop_returning(uint32_t d, clr::FunctionID function, uint64_t now_ticks);
  // Pushes a frame for `node` at depth `d` and publishes it.
  void push(uint32_t d, NodeNumber node, clr::FunctionID function, uint64_t now_ticks);
  // Adds a closing frame's elapsed ticks to its node (the full-tree collector's time stays with its parent).
  void charge(const ShadowFrame& frame, uint64_t now_ticks);
  // The node on top of a stack `depth` frames deep.
  __attribute__((always_inline)) NodeNumber top_node(uint32_t depth) const {
    return depth ? hot_.frames[depth - 1].node.load(std::memory_order_relaxed) : 0;
  }
  struct FastLimitRefresh;
  // The depth below which the assembly may enter, once no tail entry is pending.
  __attribute__((always_inline)) uint32_t limit_after_tail_now() const {
    return overflow_depth_ == 0 && !exception_.any_unwound() ? capacity_ : 0;
  }
  // After anything that may have changed what fast_limit depends on.
  __attribute__((always_inline)) void refresh_fast_limit() {
    hot_.limit_after_tail = limit_after_tail_now();
    hot_.fast_limit = hot_.pending_tail_entry ? 0 : hot_.limit_after_tail;
  }
  // The child of `parent` for `function`, made if it is new (or the full tree's collector).
  NodeNumber child_of(NodeNumber parent, clr::FunctionID function);
  NodeNumber find_child(NodeNumber parent, clr::FunctionID function);
  NodeNumber new_child(NodeNumber parent, clr::FunctionID function);
  // A node with more children than this finds them through index_: a list this short is as quick to walk.
  static constexpr uint32_t kListedChildren = 4;
  void pop_to(uint32_t new_depth, uint64_t now_ticks);
  void count(DropReason reason) { drops_[static_cast<size_t>(reason)].add(1); }
  bool pop_matching(clr::FunctionID function, uint64_t now_ticks);
  void pop_frame_of(clr::FunctionID function, uint64_t now_ticks);

  Region frames_region_;
  Region hot_region_;
  Region cold_region_;
  uint32_t capacity_;
  uint32_t overflow_depth_ = 0;  // frames entered beyond capacity, not recorded
  const bool every_method_hooked_;
  ExceptionTracking exception_;
  // The topmost frame of `function` not yet unwound.
  uint32_t topmost_frame_of(clr::FunctionID function) const;
  OwnerCounter unwinds_;
  OwnerCounter slow_enters_, child_searches_, sibling_steps_, indexed_searches_, node_count_;
  // The nodes: hot_.nodes[n] and cold_[n] (hot_.cold_nodes[n]) are node n. The reservations, or the two nodes below
  // if they could not be made.
  CallNode* cold_;
  HotNode fallback_hot_[2];
  CallNode fallback_cold_[2];
  NodeNumber next_node_;
  NodeNumber max_nodes_;  // what the reservations hold
  NodeBudget* budget_;
  size_t budget_bytes_ = 0;  // what budget_ has granted this thread
  // Takes another chunk of the budget; false if no room is left for a node.
  bool take_budget();
  bool room_for_node() const { return next_node_ < max_nodes_ && (next_node_ + 1) * kNodeBytes <= budget_bytes_; }
  ChildIndex index_;
  std::array<OwnerCounter, kDropReasonCount> drops_;
};

#define UMBRA_ALWAYS_INLINE __attribute__((always_inline)) inline

// The common enter: room on the stack and the node exists (a new node is the slow path's).
// First the hint (the frame that last returned at this depth): a loop calling one method re-enters the node it just
// left, and a method calling a sequence of others finds the next one as the returned node's successor, without
// touching the tree. Then the parent's last-entered child, then its children.
UMBRA_ALWAYS_INLINE bool ThreadShadow::try_enter(clr::FunctionID function, uint64_t now_ticks) {
  uint32_t d = hot_.depth.load(std::memory_order_relaxed);
  if (__builtin_expect(overflow_depth_ != 0 || d == capacity_, 0)) return false;
  HotNode* nodes = hot_.nodes;
  NodeNumber node = hot_.hint_node;
  if (d != hot_.hint_depth || function != hot_.hint_function) {
    // The collector of a full tree stands for frames of any parent: its successor could be anyone's child.
    bool after_sibling = d == hot_.hint_depth && node != hot_.tree_full_node;
    NodeNumber next = after_sibling ? nodes[node].successor : 0;
    if (next != 0 && nodes[next].function == function) {
      node = next;
    } else {
      NodeNumber parent = top_node(d);
      NodeNumber found = nodes[parent].last_hit;
      if (found == 0 || nodes[found].function != function) {
        found = find_child(parent, function);
        if (found == 0) return false;
        nodes[parent].last_hit = found;
      }
      if (after_sibling) nodes[node].successor = found;
      node = found;
    }
  }
  hot_.enters.add(1);
  nodes[node].calls.add(1);
  if (hot_.pending_tail_entry) {
    cold_[node].tail_entries.add(1);
    hot_.pending_tail_entry = false;
    refresh_fast_limit();
  }
  push(d, node, function, now_ticks);
  return true;
}

// An existing child of `parent`, or 0. Past a few children (kListedChildren), the index knows them all.
UMBRA_ALWAYS_INLINE NodeNumber ThreadShadow::find_child(NodeNumber parent, clr::FunctionID function) {
  child_searches_.add(1);
  const CallNode& p = cold_[parent];
  if (p.children > kListedChildren && index_.usable()) {
    indexed_searches_.add(1);
    return index_.find(parent, function);
  }
  uint64_t steps = 0;
  const CallNode* c = p.first_child.load(std::memory_order_relaxed);
  for (; c && c->function != function; c = c->next_sibling) ++steps;
  sibling_steps_.add(steps);
  return c ? NodeNumber(c - cold_) : 0;
}

inline void ThreadShadow::enter(clr::FunctionID function, uint64_t now_ticks) {
  if (!try_enter(function, now_ticks)) enter_slow(function, now_ticks);
}

// The common leave: the function on top of the stack returns.
UMBRA_ALWAYS_INLINE bool ThreadShadow::try_leave(clr::FunctionID function, uint64_t now_ticks) {
  uint32_t d = hot_.depth.load(std::memory_order_relaxed);
  if (__builtin_expect(overflow_depth_ != 0 || d == 0 || hot_.frames[d - 1].function != function ||
                           hot_.pending_tail_entry,
                       0))
    return false;
  hot_.leaves.add(1);
  pop_returning(d, function, now_ticks);
  return true;
}

UMBRA_ALWAYS_INLINE bool ThreadShadow::try_tailcall(clr::FunctionID function, uint64_t now_ticks) {
  uint32_t d = hot_.depth.load(std::memory_order_relaxed);
  if (__builtin_expect(overflow_depth_ != 0 || d == 0 || hot_.frames[d - 1].function != function ||
                           exception_.any_unwound(),
                       0))
    return false;
  hot_.tailcalls.add(1);
  pop_returning(d, function, now_ticks);
  hot_.pending_tail_entry = true;
  hot_.fast_limit = 0;
  return true;
}

// The top frame of a stack `d` deep returns (or tail-calls): it becomes the hint.
UMBRA_ALWAYS_INLINE void ThreadShadow::pop_returning(uint32_t d, clr::FunctionID function, uint64_t now_ticks) {
  const ShadowFrame& top = hot_.frames[d - 1];
  charge(top, now_ticks);
  hot_.hint_depth = d - 1;
  hot_.hint_function = function;
  hot_.hint_node = top.node.load(std::memory_order_relaxed);
  hot_.depth.store(d - 1, std::memory_order_release);
  // The frame below, not the node's parent: under a full tree the collector stands for frames of any parent.
  hot_.current.store(top_node(d - 1), std::memory_order_release);
}

inline void ThreadShadow::tailcall(clr::FunctionID function, uint64_t now_ticks) {
  if (!try_tailcall(function, now_ticks)) tailcall_slow(function, now_ticks);
}

// Kept out of line: inlined into the hooks, it made the call loop slower (bench/RESULTS.md, BM_Elt3HookPair).
__attribute__((noinline)) inline void ThreadShadow::leave(clr::FunctionID function, uint64_t now_ticks) {
  if (!try_leave(function, now_ticks)) leave_slow(function, now_ticks);
}

UMBRA_ALWAYS_INLINE void ThreadShadow::push(uint32_t d, NodeNumber node, clr::FunctionID function, uint64_t now_ticks) {
  ShadowFrame& frame = hot_.frames[d];
  frame.node.store(node, std::memory_order_relaxed);
  frame.start_ticks.store(now_ticks, std::memory_order_relaxed);
  frame.function = function;
  hot_.depth.store(d + 1, std::memory_order_release);
  hot_.current.store(node, std::memory_order_release);
}

UMBRA_ALWAYS_INLINE void ThreadShadow::charge(const ShadowFrame& frame, uint64_t now_ticks) {
  NodeNumber node = frame.node.load(std::memory_order_relaxed);
  if (node == hot_.tree_full_node) return;  // nested frames under the collector would count its time twice
  uint64_t start = frame.start_ticks.load(std::memory_order_relaxed);
  // Under the coarse clock most calls end on the reading they began on: their node's line is left alone.
  if (now_ticks > start) hot_.nodes[node].total_ticks.add(now_ticks - start);
}

#undef UMBRA_ALWAYS_INLINE

template <typename Visit>
void ThreadShadow::for_each_open_frame(uint64_t now_ticks, Visit&& visit) const {
  uint32_t d = depth();
  for (uint32_t i = 0; i < d; ++i) {
    NodeNumber node = hot_.frames[i].node.load(std::memory_order_relaxed);
    uint64_t start = hot_.frames[i].start_ticks.load(std::memory_order_relaxed);
    if (node != 0 && node != hot_.tree_full_node && now_ticks > start) visit(&cold_[node], now_ticks - start);
  }
}

}  // namespace umbra
