#include "merge/tree_builder.h"

#include <cmath>
#include <string>

namespace umbra {
namespace {


void add_optional(std::optional<uint64_t>& into, const std::optional<uint64_t>& from) {
  if (from) into = into.value_or(0) + *from;
}

struct Lookups {
  const NameLookup& names;
  double ns_per_tick;
  const OpenTicks& open;
  const SpliceLookup& splices;
  const NativeLookup& native;
};

ReportNode convert(const CallNode& node, const Lookups& l);

// `node` as it goes under its parent: behind the frames a snapshot found between them, if any.
ReportNode convert_with_splice(const CallNode& node, const Lookups& l) {
  ReportNode converted = convert(node, l);
  const std::vector<SampleFrame>* run = l.splices ? l.splices(&node) : nullptr;
  if (run == nullptr || run->empty()) return converted;
  for (size_t i = run->size(); i-- > 0;) {
    const SampleFrame& f = (*run)[i];
    ReportNode wrapper;
    if (f.native && l.native) {
      NativeSymbol symbol = l.native(f.id);
      wrapper.name = std::move(symbol.name);
      wrapper.module = std::move(symbol.module);
      wrapper.kind = "native";
    } else {
      FunctionName name = l.names(f.id);
      wrapper.name = std::move(name.name);
      wrapper.module = std::move(name.module);
    }
    wrapper.total_ns = converted.total_ns;
    wrapper.children.push_back(std::move(converted));
    converted = std::move(wrapper);
  }
  return converted;
}

ReportNode convert(const CallNode& node, const Lookups& l) {
  const NameLookup& names = l.names;
  const double ns_per_tick = l.ns_per_tick;
  const OpenTicks& open = l.open;
  ReportNode out;
  if (node.function == kTreeFullFunction) {
    out.name = "[calls beyond the node limit]";
    out.kind = "marker";
  } else if (node.function == kDeeperCallsFunction) {
    out.name = "[deeper calls not recorded: shadow stack full]";
    out.kind = "marker";
  } else {
    FunctionName name = names(node.function);
    out.name = std::move(name.name);
    out.module = std::move(name.module);
  }
  uint64_t ticks = node.total_ticks.get();
  if (auto it = open.find(&node); it != open.end()) ticks += it->second;
  out.calls = node.calls.get();
  out.total_ns = uint64_t(std::llround(double(ticks) * ns_per_tick));
  out.self_samples = node.self_samples.load(std::memory_order_relaxed);
  out.tail_entries = node.tail_entries.get();
  SiblingMerger children(out.children);
  for (const CallNode* child = node.first_child_acquire(); child; child = child->next_sibling)
    children.add(convert_with_splice(*child, l));
  return out;
}

}  // namespace

std::string SiblingMerger::key(const ReportNode& node) {
  return node.name + '\x1f' + node.module + '\x1f' + node.kind;
}

SiblingMerger::SiblingMerger(std::vector<ReportNode>& siblings) : siblings_(siblings) {
  for (size_t i = 0; i < siblings_.size(); ++i) index_.emplace(key(siblings_[i]), i);
}

void SiblingMerger::add(ReportNode&& node) {
  auto [it, inserted] = index_.emplace(key(node), siblings_.size());
  if (inserted) siblings_.push_back(std::move(node));
  else merge_node(siblings_[it->second], std::move(node));
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

std::vector<ReportNode> build_roots(const CallNode& root, const NameLookup& names, double ns_per_tick,
                                    const OpenTicks& open, const SpliceLookup& splices,
                                    const NativeLookup& native) {
  Lookups l{names, ns_per_tick, open, splices, native};
  std::vector<ReportNode> roots;
  SiblingMerger merger(roots);
  for (const CallNode* child = root.first_child_acquire(); child; child = child->next_sibling)
    merger.add(convert_with_splice(*child, l));
  for (auto& r : roots) finish_totals(r);
  return roots;
}

}  // namespace umbra
