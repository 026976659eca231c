// Turns a thread's live call tree (CallNodes keyed by FunctionID) into report nodes with names and nanoseconds.
// Siblings that resolve to the same method (e.g. several instantiations sharing a display name) are merged.
//
// Runs when a report is written, on the writer's thread and any helpers it is given; reads the owner's counters
// with relaxed loads. Recursion depth follows the tree depth, so callers run it on a thread with a large stack.
#pragma once

#include <deque>
#include <functional>
#include <unordered_map>
#include <vector>

#include "hooks/thread_shadow.h"
#include "merge/period_counts.h"
#include "names/function_names.h"
#include "snapshot/native_symbols.h"
#include "snapshot/sampled_tree.h"
#include "report/report.h"
#include "report/report_tree.h"
#include "util/shared_work.h"

namespace umbra {

using NameLookup = std::function<FunctionName(clr::FunctionID)>;
// Frames the reconciliation found between a node and its parent (root first), or nullptr.
using SpliceLookup = std::function<const std::vector<SampleFrame>*(const CallNode*)>;

// Frames sampled above a node (methods without hooks, native code: samples, no calls), or nullptr.
using AboveLookup = std::function<const SampledTree*(const CallNode*)>;

// Ticks of frames still open when the report is taken, per node; added to those nodes' totals.
using OpenTicks = std::unordered_map<const CallNode*, uint64_t>;

// Names frames for one report, each function and native address once (a tree repeats them on many nodes).
class FrameNamer {
 public:
  FrameNamer(const NameLookup& managed, const NativeLookup& native) : managed_(managed), native_(native) {}
  const ReportFrame* managed(clr::FunctionID function);
  // A frame of a snapshot or a sampled tree: its method's name and module, or its native symbol.
  const ReportFrame* of(const SampleFrame& frame);

 private:
  // Open addressing, keyed by the id (never 0) and whether it is native: asked once per node of trees of
  // millions, it answers from one probe where a node-based map took two cache misses.
  struct Slot {
    uintptr_t key = 0;
    const ReportFrame* frame = nullptr;
  };
  const ReportFrame*& slot_for(uintptr_t key);
  const NameLookup& managed_;
  const NativeLookup& native_;
  std::vector<Slot> slots_ = std::vector<Slot>(1024);
  size_t used_ = 0;
};

// One FrameNamer per worker for all the trees of one report: the threads of a pool run the same methods, and a
// function a namer has not met costs a lookup in the names' table and the interning of its frame, each under a lock
// the workers share. Workers are numbered as SharedWork numbers them; namers are made before any worker asks.
class FrameNamers {
 public:
  FrameNamers(const NameLookup& managed, const NativeLookup& native) : managed_(managed), native_(native) {}
  FrameNamer& of_worker(unsigned worker) {
    while (namers_.size() <= worker) namers_.emplace_back(managed_, native_);
    return namers_[worker];
  }

 private:
  const NameLookup& managed_;
  const NativeLookup& native_;
  std::deque<FrameNamer> namers_;  // a deque: a namer stays where it is while more are made
};

// With `splices`, the runs of frames a snapshot found between a node and its parent are inserted there (native
// frames as "kind":"native"; their calls are unknown, their time is their child's). With `above`, the frames
// sampled above a node become its children (a root's, roots), beside its hooked callees. With `lens`, every count
// is read through it (a period's report: merge/period_counts.h); nodes it leaves out are not in the tree. Every
// node comes finished (report/report_tree.h: finish_node). With `calls`, the sum of every node's calls is stored
// there (ReportThread::calls): counted here, it needs no walk of the tree later. With `work` (and no lens), its
// helpers convert parts of the tree beside the caller: `names`, `native`, `splices`, `above` and intern_frame are
// then called from several threads at once, and the tree is the same as the caller's alone. With `namers` (made
// from the same `names` and `native`), the frames are named through them, kept for the next tree.
std::vector<ReportNode> build_roots(const CallNode& root, const NameLookup& names, double ns_per_tick,
                                    const OpenTicks& open, const SpliceLookup& splices = nullptr,
                                    const NativeLookup& native = nullptr, const AboveLookup& above = nullptr,
                                    PeriodCounts::Lens* lens = nullptr, uint64_t* calls = nullptr,
                                    SharedWork* work = nullptr, FrameNamers* namers = nullptr);

}  // namespace umbra
