// Merging report trees: siblings that are the same method become one node (several generic instantiations,
// several threads merged into one tree) and totals are recomputed bottom-up. No runtime knowledge: shared by the
// profiler's tree builders and `umbra report --merge-threads`.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "report/report.h"

namespace umbra {

// Appends nodes to a sibling list, merging those with the same method (hash index: lists can be long).
class SiblingMerger {
 public:
  explicit SiblingMerger(std::vector<ReportNode>& siblings);
  void add(ReportNode&& node);

 private:
  static std::string key(const ReportNode& node);
  std::vector<ReportNode>& siblings_;
  std::unordered_map<std::string, size_t> index_;
};

// Adds `from` into `into` (same method): counters summed, children merged by name and module.
void merge_node(ReportNode& into, ReportNode&& from);

// Recomputes self_ns and samples bottom-up: self = total - sum(children totals); samples = self + children.
void finish_totals(ReportNode& node);

}  // namespace umbra
