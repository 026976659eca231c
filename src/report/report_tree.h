// Merging report trees: siblings that are the same method become one node (several generic instantiations,
// several threads merged into one tree) and totals are recomputed bottom-up. No runtime knowledge: shared by the
// profiler's tree builders and `umbra report --merge-threads`.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "report/report.h"

namespace umbra {

// Appends nodes to a sibling list, merging those with the same frame (hash index: lists can be long).
class SiblingMerger {
 public:
  explicit SiblingMerger(std::vector<ReportNode>& siblings);
  SiblingMerger(const SiblingMerger&) = delete;
  SiblingMerger& operator=(const SiblingMerger&) = delete;
  void add(ReportNode&& node);

 private:
  // Short lists are searched in place; the index is built when a list grows past this (most lists never do).
  static constexpr size_t kScanned = 8;
  ReportNode* find(const ReportFrame* frame);
  std::vector<ReportNode>& siblings_;
  std::unordered_map<const ReportFrame*, size_t> index_;  // frame -> position in siblings_, once past kScanned
};

// Adds `from` into `into` (same method): counters summed, children merged by frame. Where both were finished
// (finish_node), the merged node is too: builders that finish each node as they make it need no second walk.
void merge_node(ReportNode& into, ReportNode&& from);

// Removes the nodes in which nothing happened (no call, sample or time of their own or below them): a period's
// report holds only what that period saw.
void drop_empty_nodes(std::vector<ReportNode>& nodes);

// Computes self_ns, samples and cpu_samples of `node` from its direct children, which must be finished already:
// self = total - sum(children totals); samples = self + children.
void finish_node(ReportNode& node);

// finish_node over the whole subtree, bottom-up: for trees built without it, or changed since.
void finish_totals(ReportNode& node);

}  // namespace umbra
