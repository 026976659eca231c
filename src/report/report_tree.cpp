#include "report/report_tree.h"

#include <optional>
#include <string_view>

namespace umbra {
namespace {

void add_optional(std::optional<uint64_t>& into, const std::optional<uint64_t>& from) {
  if (from) into = into.value_or(0) + *from;
}

}  // namespace

size_t SiblingMerger::Hash::operator()(size_t i) const {
  const ReportNode& node = merger->at(i);
  std::hash<std::string_view> hash;
  return (hash(node.name) * 1000003 ^ hash(node.module)) * 1000003 ^ hash(node.kind);
}

bool SiblingMerger::Equal::operator()(size_t a, size_t b) const {
  const ReportNode &x = merger->at(a), &y = merger->at(b);
  return x.name == y.name && x.module == y.module && x.kind == y.kind;
}

SiblingMerger::SiblingMerger(std::vector<ReportNode>& siblings)
    : siblings_(siblings), index_(siblings.size(), Hash{this}, Equal{this}) {
  for (size_t i = 0; i < siblings_.size(); ++i) index_.insert(i);
}

void SiblingMerger::add(ReportNode&& node) {
  probe_ = &node;
  auto it = index_.find(kProbe);
  if (it != index_.end()) {
    merge_node(siblings_[*it], std::move(node));
    return;
  }
  siblings_.push_back(std::move(node));
  index_.insert(siblings_.size() - 1);
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
