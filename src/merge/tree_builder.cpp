#include "merge/tree_builder.h"

#include <cmath>
#include <string>

namespace umbra {
namespace {

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
    ReportNode wrapper = named_frame(f, l.names, l.native);
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

ReportNode named_frame(const SampleFrame& frame, const NameLookup& managed, const NativeLookup& native) {
  ReportNode out;
  if (frame.native && native) {
    NativeSymbol symbol = native(frame.id);
    out.name = std::move(symbol.name);
    out.module = std::move(symbol.module);
    out.kind = "native";
  } else {
    FunctionName name = managed(frame.id);
    out.name = std::move(name.name);
    out.module = std::move(name.module);
  }
  return out;
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
