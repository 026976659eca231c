#include "sampler/signal_stack_alignment.h"

#include "hooks/thread_shadow.h"

namespace umbra {

bool is_method_node(const CallNode& node) {
  return node.parent != nullptr && node.function != kTreeFullFunction && node.function != kDeeperCallsFunction;
}

SignalStackAlignment align_with_shadow(const SampleFrame* leaf_first, size_t n, const CallNode* node,
                                       clr::FunctionID returns_into, bool truncated) {
  using Outcome = SignalStackAlignment::Outcome;
  auto managed_from = [&](size_t from) {
    while (from < n && leaf_first[from].native) ++from;
    return from;
  };
  if (node == nullptr || !is_method_node(*node)) {
    // The whole managed stack, without the native start-up below its outermost managed frame.
    size_t above = n;
    while (above > 0 && leaf_first[above - 1].native) --above;
    if (above == 0) return {Outcome::kNoManagedFrame};
    if (truncated) return {Outcome::kTruncated};  // where the stack begins is unknown
    // Interrupted in a managed leaf whose frame is not (or no longer) set up: the word on top of the stack is the
    // return address into its caller, which the chain skipped unless it is the very next frame.
    size_t next = managed_from(1);
    bool leaf_caller_missing = returns_into != 0 && !leaf_first[0].native &&
                               (next == n || leaf_first[next].id != returns_into);
    return {Outcome::kNoHookedFrame, above, leaf_caller_missing ? returns_into : 0};
  }
  for (size_t i = 0; i < n; ++i)
    if (!leaf_first[i].native && leaf_first[i].id == node->function)
      return i == 0 ? SignalStackAlignment{Outcome::kOnHookedFrame} : SignalStackAlignment{Outcome::kAboveHooked, i};
  // A frameless leaf, or one interrupted in its prologue, hides its caller from the frame-pointer chain: the hooked
  // frame is that caller when the word on top of the stack returns into it, or when the managed frame after the
  // leaf's is the hooked frame's own caller.
  size_t leaf = managed_from(0);
  if (leaf == n) return {Outcome::kUnaligned};
  size_t next = managed_from(leaf + 1);
  bool caller_follows = next < n && is_method_node(*node->parent) && leaf_first[next].id == node->parent->function;
  if (returns_into == node->function || caller_follows) return {Outcome::kAboveHooked, leaf + 1};
  return {Outcome::kUnaligned};
}

void vote_splices(SpliceMap& votes, const SampleFrame* leaf_first, size_t n, const CallNode* node, size_t at,
                  bool reaches_start, std::vector<SampleFrame>& run) {
  for (; is_method_node(*node); node = node->parent) {
    if (at >= n || leaf_first[at].native || leaf_first[at].id != node->function) return;
    size_t next = at + 1;
    while (next < n && leaf_first[next].native) ++next;
    const bool outermost = !is_method_node(*node->parent);
    const bool parent_found = outermost ? next == n && reaches_start
                                        : next < n && leaf_first[next].id == node->parent->function;
    if (!parent_found) return;
    run.clear();
    for (size_t i = next; i-- > at + 1;) run.push_back(leaf_first[i]);
    vote_splice(votes, node, run.data(), run.size());
    at = next;
  }
}

}  // namespace umbra
