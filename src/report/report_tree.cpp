#include "report/report_tree.h"

#include <optional>

namespace umbra {
namespace {

void add_optional(std::optional<uint64_t>& into, const std::optional<uint64_t>& from) {
  if (from) into = into.value_or(0) + *from;
}

}  // namespace

SiblingMerger::SiblingMerger(std::vector<ReportNode>& siblings) : siblings_(siblings) {
  index_.reserve(siblings.size());
  for (size_t i = 0; i < siblings_.size(); ++i) index_.emplace(siblings_[i].frame, i);
}

void SiblingMerger::add(ReportNode&& node) {
  auto [it, added] = index_.try_emplace(node.frame, siblings_.size());
  if (!added) {
    merge_node(siblings_[it->second], std::move(node));
    return;
  }
  siblings_.push_back(std::move(node));
}

void merge_node(ReportNode& into, ReportNode&& from) {
  add_optional(into.calls, from.calls);
  add_optional(into.total_ns, from.total_ns);
  into.self_samples += from.self_samples;
  into.tail_entries += from.tail_entries;
  SiblingMerger children(into.children);
  for (auto& child : from.children) children.add(std::move(child));
}

void finish_totals(ReportNode& node) {
  uint64_t children_ns = 0, children_samples = 0;
  for (auto& child : node.children) {
    finish_totals(child);
    children_ns += child.total_ns.value_or(0);
    children_samples += child.samples;
  }
  if (node.total_ns) node.self_ns = *node.total_ns > children_ns ? *node.total_ns - children_ns : 0;
  node.samples = node.self_samples + children_samples;
}

}  // namespace umbra
