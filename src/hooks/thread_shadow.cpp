#include "hooks/thread_shadow.h"

#include <algorithm>
#include <limits>
#include <new>

namespace umbra {

namespace {

// How many nodes the reservations are made for: `bytes` of nodes, within what node numbers can count.
size_t max_nodes_for(size_t bytes) {
  size_t nodes = std::min(bytes, ShadowLimits::kMaxNodeReservation) / kNodeBytes;
  return std::min<size_t>(nodes, std::numeric_limits<NodeNumber>::max());
}

}  // namespace

// Recomputes the fast path's limit when the scope ends, whichever way it ends.
struct ThreadShadow::FastLimitRefresh {
  ThreadShadow& shadow;
  ~FastLimitRefresh() { shadow.refresh_fast_limit(); }
};

ThreadShadow::ThreadShadow(const ShadowLimits& limits, NodeBudget* budget)
    : frames_region_(size_t(limits.max_depth) * sizeof(ShadowFrame), 4096),
      hot_region_(max_nodes_for(limits.node_bytes) * sizeof(HotNode), size_t(1) << 16),
      cold_region_(max_nodes_for(limits.node_bytes) * sizeof(CallNode), size_t(1) << 16),
      capacity_(uint32_t(frames_region_.size() / sizeof(ShadowFrame))),
      every_method_hooked_(limits.every_method_hooked),
      budget_(budget),
      index_(max_nodes_for(limits.node_bytes)) {
  size_t reserved = std::min(hot_region_.size() / sizeof(HotNode), cold_region_.size() / sizeof(CallNode));
  hot_.frames = static_cast<ShadowFrame*>(frames_region_.data());
  if (reserved >= 2) {
    hot_.nodes = static_cast<HotNode*>(hot_region_.data());
    cold_ = static_cast<CallNode*>(cold_region_.data());
    max_nodes_ = NodeNumber(reserved);
  } else {
    hot_.nodes = fallback_hot_;
    cold_ = fallback_cold_;
    max_nodes_ = 2;
  }
  hot_.cold_nodes = cold_;
  HotNode* hot = hot_.nodes;
  // The root and the collector for a full tree are the first two nodes, so they always exist. Neither is charged
  // to the budget: a prepared shadow takes nothing from it until its tree grows.
  for (NodeNumber n : {NodeNumber(0), NodeNumber(1)}) {
    new (&hot[n]) HotNode;
    new (&cold_[n]) CallNode;
    cold_[n].hot = &hot[n];
  }
  hot_.tree_full_node = 1;
  hot[1].function = cold_[1].function = kTreeFullFunction;
  cold_[1].parent = &cold_[0];
  next_node_ = 2;
  budget_bytes_ = budget_ != nullptr ? next_node_ * kNodeBytes : size_t(max_nodes_) * kNodeBytes;
  refresh_fast_limit();
}

NodeNumber ThreadShadow::child_of(NodeNumber parent, clr::FunctionID function) {
  NodeNumber child = find_child(parent, function);
  if (child == 0) child = new_child(parent, function);
  hot_.nodes[parent].last_hit = child;
  return child;
}

bool ThreadShadow::take_budget() {
  // A megabyte at a time: one atomic operation per 10,000 nodes or so.
  constexpr size_t kChunk = size_t(1) << 20;
  if (budget_ != nullptr) {
    size_t room = size_t(max_nodes_) * kNodeBytes - budget_bytes_;
    budget_bytes_ += budget_->take_up_to(room < kChunk ? room : kChunk);
  }
  return room_for_node();
}

NodeNumber ThreadShadow::new_child(NodeNumber parent, clr::FunctionID function) {
  if (!room_for_node() && !take_budget()) {
    count(DropReason::kTreeFull);
    CallNode& collector = cold_[hot_.tree_full_node];
    if (hot_.nodes[hot_.tree_full_node].calls.get() == 0 && !collector.next_sibling) {
      // Publish the collector under the root the first time it is needed.
      collector.next_sibling = cold_[0].first_child.load(std::memory_order_relaxed);
      cold_[0].first_child.store(&collector, std::memory_order_release);
    }
    return hot_.tree_full_node;
  }
  NodeNumber n = next_node_++;
  node_count_.add(1);
  HotNode* hot = new (&hot_.nodes[n]) HotNode;
  hot->function = function;
  CallNode* node = new (&cold_[n]) CallNode;
  node->function = function;
  node->hot = hot;
  CallNode& p = cold_[parent];
  node->parent = &p;
  node->next_sibling = p.first_child.load(std::memory_order_relaxed);
  p.first_child.store(node, std::memory_order_release);
  if (++p.children > kListedChildren && index_.usable()) {
    if (p.children == kListedChildren + 1) {
      // The list until now, the new one first.
      for (const CallNode* c = node; c; c = c->next_sibling) index_.insert(parent, c->function, NodeNumber(c - cold_));
    } else {
      index_.insert(parent, function, n);
    }
  }
  return n;
}

void ThreadShadow::enter_slow(clr::FunctionID function, uint64_t now_ticks) {
  FastLimitRefresh refresh{*this};
  hot_.enters.add(1);
  slow_enters_.add(1);
  uint32_t d = hot_.depth.load(std::memory_order_relaxed);
  if (overflow_depth_ != 0 || d == capacity_) {
    ++overflow_depth_;
    hot_.pending_tail_entry = false;
    count(DropReason::kStackOverflow);
    // The tree shows where it was cut off, and how many calls went unrecorded below that point.
    NodeNumber top = hot_.current.load(std::memory_order_relaxed);
    if (top != hot_.tree_full_node) hot_.nodes[child_of(top, kDeeperCallsFunction)].calls.add(1);
    return;
  }
  // try_enter, which always runs first, looked for this child everywhere and found none: the call path is new.
  NodeNumber parent = hot_.current.load(std::memory_order_relaxed);
  NodeNumber node = new_child(parent, function);
  hot_.nodes[parent].last_hit = node;
  hot_.nodes[node].calls.add(1);
  if (hot_.pending_tail_entry) {
    cold_[node].tail_entries.add(1);
    hot_.pending_tail_entry = false;
  }
  push(d, node, function, now_ticks);
}

void ThreadShadow::pop_to(uint32_t new_depth, uint64_t now_ticks) {
  FastLimitRefresh refresh{*this};
  hot_.hint_depth = ShadowHotState::kNoHint;
  uint32_t d = hot_.depth.load(std::memory_order_relaxed);
  for (uint32_t i = d; i-- > new_depth;) charge(hot_.frames[i], now_ticks);
  exception_.popped_to(new_depth);
  hot_.depth.store(new_depth, std::memory_order_release);
  hot_.current.store(top_node(new_depth), std::memory_order_release);
}

bool ThreadShadow::pop_matching(clr::FunctionID function, uint64_t now_ticks) {
  uint32_t d = hot_.depth.load(std::memory_order_relaxed);
  for (uint32_t i = d; i-- > 0;) {
    if (hot_.frames[i].function != function) continue;
    if (uint32_t stale = d - 1 - i) drops_[static_cast<size_t>(DropReason::kStaleFramePopped)].add(stale);
    pop_to(i, now_ticks);
    return true;
  }
  return false;
}

void ThreadShadow::leave_slow(clr::FunctionID function, uint64_t now_ticks) {
  FastLimitRefresh refresh{*this};
  hot_.leaves.add(1);
  pop_frame_of(function, now_ticks);
}

void ThreadShadow::pop_frame_of(clr::FunctionID function, uint64_t now_ticks) {
  hot_.pending_tail_entry = false;
  if (overflow_depth_ != 0) {
    --overflow_depth_;
    return;
  }
  if (!pop_matching(function, now_ticks)) count(DropReason::kUnmatchedLeave);
}

void ThreadShadow::tailcall_slow(clr::FunctionID function, uint64_t now_ticks) {
  FastLimitRefresh refresh{*this};
  hot_.tailcalls.add(1);
  pop_frame_of(function, now_ticks);
  hot_.pending_tail_entry = true;
}

uint32_t ThreadShadow::topmost_frame_of(clr::FunctionID function) const {
  for (uint32_t i = hot_.depth.load(std::memory_order_relaxed); i-- > 0;)
    if (hot_.frames[i].function == function && !exception_.is_unwound(i)) return i;
  return ExceptionTracking::kNoFrame;
}

void ThreadShadow::search_enter(clr::FunctionID function) {
  // A filter's own method, searched by an exception thrown inside the filter, is the funclet, not a frame below.
  if (exception_.in_filter_of(function)) return;
  bool bottom = hot_.depth.load(std::memory_order_relaxed) > 0 && hot_.frames[0].function == function;
  if (bottom) exception_.search_reached_bottom();
}

bool ThreadShadow::unwind_enter(clr::FunctionID function) {
  uint32_t frame = overflow_depth_ != 0                ? ExceptionTracking::kNoFrame
                   : exception_.in_filter_of(function) ? ExceptionTracking::kFilterFunclet
                                                       : topmost_frame_of(function);
  bool unhandled = false;
  if (!exception_.begin_unwind(function, frame, unhandled))
    count(DropReason::kUnmatchedLeave);  // nested deeper than tracked: this unwind will not pop its frame
  return unhandled;
}

void ThreadShadow::unwind_leave(uint64_t now_ticks) {
  FastLimitRefresh refresh{*this};
  unwinds_.add(1);
  hot_.pending_tail_entry = false;
  ExceptionTracking::Unwinding u{};
  if (!exception_.end_unwind(u)) return;
  if (overflow_depth_ != 0) {
    --overflow_depth_;
    return;
  }
  uint32_t d = hot_.depth.load(std::memory_order_relaxed);
  if (u.frame == ExceptionTracking::kNoFrame && !every_method_hooked_) return;  // a frame without hooks
  if (u.frame == ExceptionTracking::kNoFrame || u.frame >= d || hot_.frames[u.frame].function != u.function) {
    count(DropReason::kUnmatchedLeave);
    return;
  }
  if (u.frame + 1 < d && exception_.keep_unwound(u.frame)) return;
  if (uint32_t stale = d - 1 - u.frame) drops_[static_cast<size_t>(DropReason::kStaleFramePopped)].add(stale);
  pop_to(u.frame, now_ticks);
}

void ThreadShadow::catcher_enter(clr::FunctionID function, uint64_t now_ticks) {
  FastLimitRefresh refresh{*this};
  exception_.catcher_entered(function);
  if (overflow_depth_ != 0) return;
  uint32_t d = hot_.depth.load(std::memory_order_relaxed);
  uint32_t i = topmost_frame_of(function);
  if (i == ExceptionTracking::kNoFrame || i + 1 == d) return;
  // From the lowest unwound frame up, the frames are the exception's and its dispatch's; the others never returned.
  uint32_t dispatch = exception_.lowest_unwound_above(i, d);
  if (uint32_t stale = dispatch - 1 - i) drops_[static_cast<size_t>(DropReason::kStaleFramePopped)].add(stale);
  pop_to(i + 1, now_ticks);
}

}  // namespace umbra
