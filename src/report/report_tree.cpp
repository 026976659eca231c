#include "report/report_tree.h"

#include <optional>

namespace umbra {
namespace {

void add_optional(std::optional<uint64_t>& into, const std::optional<uint64_t>& from) {
  if (from) into = into.value_or(0) + *from;
}

}  // namespace

SiblingMerger::SiblingMerger(std::vector<ReportNode>& siblings) : siblings_(siblings) {}

ReportNode* SiblingMerger::find(const ReportFrame* frame) {
  if (siblings_.size() <= kScanned) {
    for (ReportNode& sibling : siblings_)
      if (sibling.frame == frame) return &sibling;
    return nullptr;
  }
  if (index_.empty())
    for (size_t i = 0; i < siblings_.size(); ++i) index_.emplace(siblings_[i].frame, i);
  auto it = index_.find(frame);
  return it == index_.end() ? nullptr : &siblings_[it->second];
}

void SiblingMerger::add(ReportNode&& node) {
  if (ReportNode* same = find(node.frame)) {
    merge_node(*same, std::move(node));
    return;
  }
  siblings_.push_back(std::move(node));
  if (!index_.empty()) index_.emplace(siblings_.back().frame, siblings_.size() - 1);
}

void merge_node(ReportNode& into, ReportNode&& from) {
  add_optional(into.calls, from.calls);
  add_optional(into.total_ns, from.total_ns);
  into.self_samples += from.self_samples;
  into.self_cpu_samples += from.self_cpu_samples;
  into.tail_entries += from.tail_entries;
  SiblingMerger children(into.children);
  for (auto& child : from.children) children.add(std::move(child));
  finish_node(into);
}

void drop_empty_nodes(std::vector<ReportNode>& nodes) {
  for (ReportNode& node : nodes) drop_empty_nodes(node.children);
  std::erase_if(nodes, [](const ReportNode& node) {
    return node.children.empty() && node.calls.value_or(0) == 0 && node.total_ns.value_or(0) == 0 &&
           node.self_samples == 0;
  });
}

void finish_node(ReportNode& node) {
  uint64_t children_ns = 0, children_samples = 0, children_cpu_samples = 0;
  for (const auto& child : node.children) {
    children_ns += child.total_ns.value_or(0);
    children_samples += child.samples;
    children_cpu_samples += child.cpu_samples;
  }
  if (node.total_ns) node.self_ns = *node.total_ns > children_ns ? *node.total_ns - children_ns : 0;
  node.samples = node.self_samples + children_samples;
  node.cpu_samples = node.self_cpu_samples + children_cpu_samples;
}

void finish_totals(ReportNode& node) {
  for (auto& child : node.children) finish_totals(child);
  finish_node(node);
}

}  // namespace umbra
