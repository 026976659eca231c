// Merging report trees: siblings that are the same method become one node (several generic instantiations,
// several threads merged into one tree) and totals are recomputed bottom-up. No runtime knowledge: shared by the
// profiler's tree builders and `umbra report --merge-threads`.
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

#include "report/report.h"

namespace umbra {

// Appends nodes to a sibling list, merging those with the same method (hash index: lists can be long).
class SiblingMerger {
 public:
  explicit SiblingMerger(std::vector<ReportNode>& siblings);
  SiblingMerger(const SiblingMerger&) = delete;
  SiblingMerger& operator=(const SiblingMerger&) = delete;
  void add(ReportNode&& node);

 private:
  // The index holds positions in siblings_, hashed and compared through the nodes (no key string per node);
  // kProbe stands for the node being added.
  static constexpr size_t kProbe = ~size_t{0};
  const ReportNode& at(size_t i) const { return i == kProbe ? *probe_ : siblings_[i]; }
  struct Hash {
    const SiblingMerger* merger;
    size_t operator()(size_t i) const;
  };
  struct Equal {
    const SiblingMerger* merger;
    bool operator()(size_t a, size_t b) const;
  };
  std::vector<ReportNode>& siblings_;
  const ReportNode* probe_ = nullptr;
  std::unordered_set<size_t, Hash, Equal> index_;
};

// Adds `from` into `into` (same method): counters summed, children merged by name and module.
void merge_node(ReportNode& into, ReportNode&& from);

// Recomputes self_ns and samples bottom-up: self = total - sum(children totals); samples = self + children.
void finish_totals(ReportNode& node);

}  // namespace umbra
