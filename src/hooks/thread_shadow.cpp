#include "hooks/thread_shadow.h"

#include <algorithm>
#include <new>

namespace umbra {

ThreadShadow::ThreadShadow(const ShadowLimits& limits, NodeBudget* budget)
    : frames_region_(size_t(limits.max_depth) * sizeof(ShadowFrame), 4096),
      nodes_region_(std::min(limits.node_bytes, ShadowLimits::kMaxNodeReservation), size_t(1) << 20),
      frames_(static_cast<ShadowFrame*>(frames_region_.data())),
      capacity_(uint32_t(frames_region_.size() / sizeof(ShadowFrame))),
      every_method_hooked_(limits.every_method_hooked),
      current_(&root_),
      next_node_(static_cast<char*>(nodes_region_.data())),
      nodes_end_(next_node_ + nodes_region_.size()),
      budget_(budget),
      budget_end_(nodes_end_),
      index_(&root_, reinterpret_cast<const CallNode*>(next_node_), nodes_region_.size() / sizeof(CallNode)) {
  // The collector for a full tree is the first node, so it always exists (or is the root if nothing was mapped).
  tree_full_node_ = &root_;
  if (nodes_end_ - next_node_ >= static_cast<ptrdiff_t>(sizeof(CallNode))) {
    tree_full_node_ = new (next_node_) CallNode;
    next_node_ += sizeof(CallNode);
    tree_full_node_->function = kTreeFullFunction;
    tree_full_node_->parent = &root_;
  }
  // The collector is not charged: a prepared shadow takes nothing from the budget until its tree grows.
  if (budget_ != nullptr) budget_end_ = next_node_;
}

CallNode* ThreadShadow::child_of(CallNode* parent, clr::FunctionID function) {
  CallNode* child = find_child(parent, function);
  if (child == nullptr) child = new_child(parent, function);
  parent->last_hit = child;
  return child;
}

bool ThreadShadow::take_budget() {
  // A megabyte at a time: one atomic operation per 12,000 nodes or so.
  constexpr size_t kChunk = size_t(1) << 20;
  if (budget_ != nullptr) {
    size_t room = size_t(nodes_end_ - budget_end_);
    budget_end_ += budget_->take_up_to(room < kChunk ? room : kChunk);
  }
  return budget_end_ - next_node_ >= static_cast<ptrdiff_t>(sizeof(CallNode));
}

CallNode* ThreadShadow::new_child(CallNode* parent, clr::FunctionID function) {
  if (budget_end_ - next_node_ < static_cast<ptrdiff_t>(sizeof(CallNode)) && !take_budget()) {
    count(DropReason::kTreeFull);
    if (tree_full_node_ != &root_ && tree_full_node_->calls.get() == 0 && !tree_full_node_->next_sibling) {
      // Publish the collector under the root the first time it is needed.
      tree_full_node_->next_sibling = root_.first_child.load(std::memory_order_relaxed);
      root_.first_child.store(tree_full_node_, std::memory_order_release);
    }
    return tree_full_node_;
  }
  auto* node = new (next_node_) CallNode;
  next_node_ += sizeof(CallNode);
  node_count_.add(1);
  node->function = function;
  node->parent = parent;
  node->next_sibling = parent->first_child.load(std::memory_order_relaxed);
  parent->first_child.store(node, std::memory_order_release);
  if (++parent->children > kListedChildren && index_.usable()) {
    if (parent->children == kListedChildren + 1) {
      for (CallNode* c = node; c; c = c->next_sibling) index_.insert(c);  // the list until now, the new one first
    } else {
      index_.insert(node);
    }
  }
  return node;
}

void ThreadShadow::enter_slow(clr::FunctionID function, uint64_t now_ticks) {
  enters_.add(1);
  slow_enters_.add(1);
  uint32_t d = depth_.load(std::memory_order_relaxed);
  if (overflow_depth_ != 0 || d == capacity_) {
    ++overflow_depth_;
    pending_tail_entry_ = false;
    count(DropReason::kStackOverflow);
    // The tree shows where it was cut off, and how many calls went unrecorded below that point.
    CallNode* top = current_.load(std::memory_order_relaxed);
    if (top != tree_full_node_) child_of(top, kDeeperCallsFunction)->calls.add(1);
    return;
  }
  // try_enter, which always runs first, looked for this child everywhere and found none: the call path is new.
  CallNode* parent = current_.load(std::memory_order_relaxed);
  CallNode* node = new_child(parent, function);
  parent->last_hit = node;
  node->calls.add(1);
  if (pending_tail_entry_) {
    node->tail_entries.add(1);
    pending_tail_entry_ = false;
  }
  push(d, node, function, now_ticks);
}

void ThreadShadow::pop_to(uint32_t new_depth, uint64_t now_ticks) {
  hint_depth_ = kNoHint;
  uint32_t d = depth_.load(std::memory_order_relaxed);
  for (uint32_t i = d; i-- > new_depth;) charge(frames_[i], now_ticks);
  exception_.popped_to(new_depth);
  depth_.store(new_depth, std::memory_order_release);
  current_.store(top_node(new_depth), std::memory_order_release);
}

bool ThreadShadow::pop_matching(clr::FunctionID function, uint64_t now_ticks) {
  uint32_t d = depth_.load(std::memory_order_relaxed);
  for (uint32_t i = d; i-- > 0;) {
    if (frames_[i].function != function) continue;
    if (uint32_t stale = d - 1 - i) drops_[static_cast<size_t>(DropReason::kStaleFramePopped)].add(stale);
    pop_to(i, now_ticks);
    return true;
  }
  return false;
}

void ThreadShadow::leave_slow(clr::FunctionID function, uint64_t now_ticks) {
  leaves_.add(1);
  pop_frame_of(function, now_ticks);
}

void ThreadShadow::pop_frame_of(clr::FunctionID function, uint64_t now_ticks) {
  pending_tail_entry_ = false;
  if (overflow_depth_ != 0) {
    --overflow_depth_;
    return;
  }
  if (!pop_matching(function, now_ticks)) count(DropReason::kUnmatchedLeave);
}

void ThreadShadow::tailcall_slow(clr::FunctionID function, uint64_t now_ticks) {
  tailcalls_.add(1);
  pop_frame_of(function, now_ticks);
  pending_tail_entry_ = true;
}

uint32_t ThreadShadow::topmost_frame_of(clr::FunctionID function) const {
  for (uint32_t i = depth_.load(std::memory_order_relaxed); i-- > 0;)
    if (frames_[i].function == function && !exception_.is_unwound(i)) return i;
  return ExceptionTracking::kNoFrame;
}

void ThreadShadow::search_enter(clr::FunctionID function) {
  // A filter's own method, searched by an exception thrown inside the filter, is the funclet, not a frame below.
  if (exception_.in_filter_of(function)) return;
  bool bottom = depth_.load(std::memory_order_relaxed) > 0 && frames_[0].function == function;
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
  unwinds_.add(1);
  pending_tail_entry_ = false;
  ExceptionTracking::Unwinding u{};
  if (!exception_.end_unwind(u)) return;
  if (overflow_depth_ != 0) {
    --overflow_depth_;
    return;
  }
  uint32_t d = depth_.load(std::memory_order_relaxed);
  if (u.frame == ExceptionTracking::kNoFrame && !every_method_hooked_) return;  // a frame without hooks
  if (u.frame == ExceptionTracking::kNoFrame || u.frame >= d || frames_[u.frame].function != u.function) {
    count(DropReason::kUnmatchedLeave);
    return;
  }
  if (u.frame + 1 < d && exception_.keep_unwound(u.frame)) return;
  if (uint32_t stale = d - 1 - u.frame) drops_[static_cast<size_t>(DropReason::kStaleFramePopped)].add(stale);
  pop_to(u.frame, now_ticks);
}

void ThreadShadow::catcher_enter(clr::FunctionID function, uint64_t now_ticks) {
  exception_.catcher_entered(function);
  if (overflow_depth_ != 0) return;
  uint32_t d = depth_.load(std::memory_order_relaxed);
  uint32_t i = topmost_frame_of(function);
  if (i == ExceptionTracking::kNoFrame || i + 1 == d) return;
  // From the lowest unwound frame up, the frames are the exception's and its dispatch's; the others never returned.
  uint32_t dispatch = exception_.lowest_unwound_above(i, d);
  if (uint32_t stale = dispatch - 1 - i) drops_[static_cast<size_t>(DropReason::kStaleFramePopped)].add(stale);
  pop_to(i + 1, now_ticks);
}

}  // namespace umbra
