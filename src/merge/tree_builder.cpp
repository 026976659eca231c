#include "merge/tree_builder.h"

#include <cmath>
#include <string>

#include "merge/sampled_tree_builder.h"

namespace umbra {
namespace {

struct Lookups {
  FrameNamer& names;
  double ns_per_tick;
  const OpenTicks& open;
  const SpliceLookup& splices;
  const AboveLookup& above;
  PeriodCounts::Lens* lens;
  uint64_t calls = 0;  // of every node converted: merges keep the sum
};

void add_sampled_above(const CallNode& node, Lookups& l, SiblingMerger& children) {
  const SampledTree* above = l.above ? l.above(&node) : nullptr;
  if (above == nullptr) return;
  for (uint32_t child : above->root().children)
    if (!l.lens || l.lens->includes(above, child)) children.add(convert_sampled_node(*above, child, l.names, l.lens));
}

ReportNode convert(const CallNode& node, Lookups& l);

// `node` as it goes under its parent: behind the frames a snapshot found between them, if any.
ReportNode convert_with_splice(const CallNode& node, Lookups& l) {
  ReportNode converted = convert(node, l);
  const std::vector<SampleFrame>* run = l.splices ? l.splices(&node) : nullptr;
  if (run == nullptr || run->empty()) return converted;
  for (size_t i = run->size(); i-- > 0;) {
    const SampleFrame& f = (*run)[i];
    ReportNode wrapper;
    wrapper.frame = l.names.of(f);
    wrapper.total_ns = converted.total_ns;
    wrapper.children.push_back(std::move(converted));
    finish_node(wrapper);
    converted = std::move(wrapper);
  }
  return converted;
}

ReportNode convert(const CallNode& node, Lookups& l) {
  static const ReportFrame* const tree_full = intern_frame("[calls beyond the node limit]", "", "marker");
  static const ReportFrame* const deeper = intern_frame("[deeper calls not recorded: shadow stack full]", "", "marker");
  const double ns_per_tick = l.ns_per_tick;
  const OpenTicks& open = l.open;
  ReportNode out;
  if (node.function == kTreeFullFunction) out.frame = tree_full;
  else if (node.function == kDeeperCallsFunction) out.frame = deeper;
  else out.frame = l.names.managed(node.function);
  ShadowCounts counts{node.calls(), node.total_ticks(), node.self_samples.load(std::memory_order_relaxed),
                      node.self_cpu_samples.load(std::memory_order_relaxed), node.tail_entries.get()};
  if (auto it = open.find(&node); it != open.end()) counts.ticks += it->second;
  if (l.lens) counts = l.lens->shadow(&node, counts);
  out.calls = counts.calls;
  l.calls += counts.calls;
  out.total_ns = uint64_t(std::llround(double(counts.ticks) * ns_per_tick));
  out.self_samples = counts.self_samples;
  out.self_cpu_samples = counts.self_cpu_samples;
  out.tail_entries = counts.tail_entries;
  // Reserved first: a vector grown child by child moves every converted subtree it holds, each time.
  const CallNode* first = node.first_child_acquire();
  size_t count = 0;
  for (const CallNode* child = first; child; child = child->next_sibling) ++count;
  out.children.reserve(count);
  SiblingMerger children(out.children);
  for (const CallNode* child = first; child; child = child->next_sibling)
    if (!l.lens || l.lens->includes(child)) children.add(convert_with_splice(*child, l));
  add_sampled_above(node, l, children);
  finish_node(out);  // its children are finished: the tree needs no second walk
  return out;
}

}  // namespace

const ReportFrame*& FrameNamer::slot_for(uintptr_t key) {
  if ((used_ + 1) * 2 > slots_.size()) {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    used_ = 0;
    for (const Slot& s : old)
      if (s.key != 0) slot_for(s.key) = s.frame;
  }
  size_t mask = slots_.size() - 1;
  for (size_t i = (key * 0x9E3779B97F4A7C15ull) >> 20 & mask;; i = (i + 1) & mask) {
    if (slots_[i].key == key) return slots_[i].frame;
    if (slots_[i].key == 0) {
      slots_[i].key = key;
      ++used_;
      return slots_[i].frame;
    }
  }
}

const ReportFrame* FrameNamer::managed(clr::FunctionID function) {
  const ReportFrame*& frame = slot_for(function << 1);
  if (frame == nullptr) {
    FunctionName name = managed_(function);
    frame = intern_frame(name.name, name.module);
  }
  return frame;
}

const ReportFrame* FrameNamer::of(const SampleFrame& frame) {
  if (!frame.native || !native_) return managed(frame.id);
  const ReportFrame*& named = slot_for(frame.id << 1 | 1);
  if (named == nullptr) {
    NativeSymbol symbol = native_(frame.id);
    named = intern_frame(symbol.name, symbol.module, "native");
  }
  return named;
}

std::vector<ReportNode> build_roots(const CallNode& root, const NameLookup& names, double ns_per_tick,
                                    const OpenTicks& open, const SpliceLookup& splices,
                                    const NativeLookup& native, const AboveLookup& above, PeriodCounts::Lens* lens,
                                    uint64_t* calls) {
  FrameNamer namer(names, native);
  Lookups l{namer, ns_per_tick, open, splices, above, lens};
  std::vector<ReportNode> roots;
  SiblingMerger merger(roots);
  for (const CallNode* child = root.first_child_acquire(); child; child = child->next_sibling)
    if (!lens || lens->includes(child)) merger.add(convert_with_splice(*child, l));
  add_sampled_above(root, l, merger);
  if (calls) *calls = l.calls;
  return roots;
}

}  // namespace umbra
