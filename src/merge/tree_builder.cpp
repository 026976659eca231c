#include "merge/tree_builder.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <optional>
#include <string>

#include "merge/sampled_tree_builder.h"
#include "report/runtime_folding.h"

namespace umbra {
namespace {

struct Sharing;

struct Lookups {
  FrameNamer& names;
  double ns_per_tick;
  const OpenTicks& open;
  const SpliceLookup& splices;
  const AboveLookup& above;
  PeriodCounts::Lens* lens;
  Sharing* sharing = nullptr;  // null: this thread converts the whole tree
  unsigned worker = 0;         // SharedWork's number of the thread these lookups belong to
  uint64_t calls = 0;          // of every node converted: merges keep the sum
};

// The workers converting one tree together, each with lookups of its own (FrameNamer is not shared).
struct Sharing {
  SharedWork& work;
  std::deque<Lookups> by_worker;
};

void add_sampled_above(const CallNode& node, Lookups& l, SiblingMerger& children) {
  const SampledTree* above = l.above ? l.above(&node) : nullptr;
  if (above == nullptr) return;
  for (uint32_t child : above->root().children)
    if (!l.lens || l.lens->includes(above, child)) children.add(convert_sampled_node(*above, child, l.names, l.lens));
}

size_t count_siblings(const CallNode* first) {
  size_t count = 0;
  for (const CallNode* node = first; node; node = node->next_sibling) ++count;
  return count;
}

ReportNode convert(const CallNode& node, Lookups& l);
ReportNode convert_with_splice(const CallNode& node, Lookups& l);
void convert_siblings(const CallNode* first, size_t count, Lookups& l, SiblingMerger& merger);

// The later siblings of a node, converted by whichever worker takes them.
class SiblingsPiece : public SharedWork::Piece {
 public:
  SiblingsPiece(Sharing& sharing, const CallNode* first, size_t count)
      : sharing_(sharing), first_(first), count_(count) {}
  void run(unsigned worker) override {
    Lookups& l = sharing_.by_worker[worker];
    uint64_t before = l.calls;  // the worker may be in the middle of a part of its own
    converted.reserve(count_);
    SiblingMerger merger(converted);
    convert_siblings(first_, count_, l, merger);
    calls = l.calls - before;
    l.calls = before;
  }
  std::vector<ReportNode> converted;
  uint64_t calls = 0;

 private:
  Sharing& sharing_;
  const CallNode* first_;
  size_t count_;
};

// Converts `count` siblings from `first` on into `merger`, in their order. Whenever another worker is idle, the
// later half of those left goes to it; the tree is the same whoever converts what (merges add counts, in sibling
// order).
void convert_siblings(const CallNode* first, size_t count, Lookups& l, SiblingMerger& merger) {
  for (const CallNode* child = first; count > 0; child = child->next_sibling, --count) {
    if (l.sharing && count >= 2 && l.sharing->work.wanted()) {
      size_t kept = count / 2;
      const CallNode* rest = child;
      for (size_t i = 0; i < kept; ++i) rest = rest->next_sibling;
      SiblingsPiece piece(*l.sharing, rest, count - kept);
      l.sharing->work.offer(piece, l.worker);
      convert_siblings(child, kept, l, merger);
      l.sharing->work.complete(piece, l.worker);
      l.calls += piece.calls;
      for (ReportNode& node : piece.converted) merger.add(std::move(node));
      return;
    }
    if (!l.lens || l.lens->includes(child)) merger.add(convert_with_splice(*child, l));
  }
}

// A thread's start below its outermost hooked frame is shown when the program's own code is in it (a thread made by
// native code); a thread the runtime started keeps its first method as its root.
bool started_by_program(const std::vector<SampleFrame>& run, Lookups& l) {
  return std::any_of(run.begin(), run.end(), [&](const SampleFrame& f) { return !is_start_up_plumbing(*l.names.of(f)); });
}

// `node` as it goes under its parent: behind the frames stacks found between them, if any.
ReportNode convert_with_splice(const CallNode& node, Lookups& l) {
  ReportNode converted = convert(node, l);
  const std::vector<SampleFrame>* run = l.splices ? l.splices(&node) : nullptr;
  if (run == nullptr || run->empty()) return converted;
  if (node.parent && node.parent->parent == nullptr && !started_by_program(*run, l)) return converted;
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
  const size_t count = count_siblings(first);
  out.children.reserve(count);
  SiblingMerger children(out.children);
  convert_siblings(first, count, l, children);
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
  if (frame == kStackIncompleteFrame) {
    static const ReportFrame* const incomplete = intern_frame(kStackIncomplete, "", "marker");
    return incomplete;
  }
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
                                    uint64_t* calls, SharedWork* work, FrameNamers* namers) {
  // Every worker's namer answers from its own cache; misses meet in the name lookups, which lock.
  std::optional<FrameNamers> own_namers;
  if (namers == nullptr) namers = &own_namers.emplace(names, native);
  Lookups l{namers->of_worker(0), ns_per_tick, open, splices, above, lens};
  std::optional<Sharing> sharing;
  if (work && work->helpers() > 0 && !lens) {  // a lens counts what it reads: one reader
    sharing.emplace(Sharing{*work, {}});
    for (unsigned worker = 0; worker <= work->helpers(); ++worker)
      sharing->by_worker.push_back(Lookups{namers->of_worker(worker), ns_per_tick, open, splices, above, nullptr,
                                           &*sharing, worker});
  }
  Lookups& mine = sharing ? sharing->by_worker.front() : l;
  std::vector<ReportNode> roots;
  SiblingMerger merger(roots);
  const CallNode* first = root.first_child_acquire();
  convert_siblings(first, count_siblings(first), mine, merger);
  add_sampled_above(root, mine, merger);
  if (calls) *calls = mine.calls;
  return roots;
}

}  // namespace umbra
