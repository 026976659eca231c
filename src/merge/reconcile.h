// Aligns a thread's shadow stack with a snapshot of the same thread taken at the same moment (under
// SuspendRuntime, where neither moves) and names every difference:
// - matched frames (frames_compared);
// - native frames between two managed ones: spliced (remembered for the sampled view);
// - managed frames the snapshot shows and the hooks never saw: spliced as uninstrumented (classified afterwards:
//   the runtime's tail-call dispatcher is explained by tail calls, anything else is uninstrumented code);
// - shadow frames of functions snapshots never show (FunctionNames' invisible set: IL stubs, dynamic methods, the
//   runtime's exception dispatch): skipped and counted, never repaired;
// - shadow frames above the snapshot's top: their leave never came; repaired (popped);
// - shadow frames missing in the middle of the snapshot: stale, counted, kept (the frames above them are live);
// - anything else: unexplained.
// Contract: align() runs on the sampler thread while the runtime is suspended; it does not allocate, lock or log.
// It writes the owner's shadow stack only through ThreadShadow::repair_truncate.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "hooks/thread_shadow.h"
#include "snapshot/sampled_tree.h"

namespace umbra {

enum class ReconcileRepair : size_t { kMissedLeave, kCount };
enum class ReconcileSplice : size_t { kNativeSegment, kUninstrumented, kTailcallDispatcher, kCount };
enum class ReconcileKept : size_t { kStaleMiddleFrame, kInvisibleFrame, kCount };

inline constexpr std::array<std::string_view, size_t(ReconcileRepair::kCount)> kReconcileRepairNames = {
    "missed_leave"};
inline constexpr std::array<std::string_view, size_t(ReconcileSplice::kCount)> kReconcileSpliceNames = {
    "native_segment", "uninstrumented", "tailcall_dispatcher"};
inline constexpr std::array<std::string_view, size_t(ReconcileKept::kCount)> kReconcileKeptNames = {
    "stale_middle_frame", "invisible_frame"};

struct ReconcileCounts {
  uint64_t snapshots = 0;
  uint64_t frames_compared = 0;
  uint64_t unexplained = 0;
  uint64_t skipped_exception_in_flight = 0;
  uint64_t skipped_truncated = 0;  // the walk did not reach the root: nothing can be judged from it
  uint64_t splices_lost = 0;       // the tick's splice buffer was full
  uint64_t unseen_top_frames = 0;  // snapshot frames above the shadow's top (entered, hook not yet run, or no hook)
  std::array<uint64_t, size_t(ReconcileRepair::kCount)> repairs{};
  std::array<uint64_t, size_t(ReconcileSplice::kCount)> spliced{};
  std::array<uint64_t, size_t(ReconcileKept::kCount)> kept{};
  void add(const ReconcileCounts& o);
};

// A run of snapshot frames (root first) that belongs between a shadow node's parent and the node.
struct Splice {
  const CallNode* node = nullptr;  // the shadow node right after the run: the run sits between it and its parent
  uint32_t first = 0, count = 0;   // into the caller's splice frame buffer; count 0: seen with nothing between
  bool native = false;                   // native segment, or managed frames the hooks did not see
};

// Fixed-capacity outputs, prepared before the suspension.
struct ReconcileScratch {
  SampleFrame* root_first = nullptr;  // the snapshot, reversed (capacity >= frames)
  size_t capacity = 0;
  Splice* splices = nullptr;
  size_t splice_capacity = 0;
  size_t splice_count = 0;
  SampleFrame* splice_frames = nullptr;
  size_t splice_frame_capacity = 0;
  size_t splice_frame_count = 0;
};

struct ReconcileOutcome {
  ReconcileCounts counts;
  bool unexplained = false;
  uint32_t shadow_at = 0, snapshot_at = 0;  // where alignment failed, for the log line
};

// `leaf_first`: the snapshot as the walk produced it. `now_ticks` times frames popped by a repair.
// `invisible` (sorted) lists functions whose frames snapshots never show. `complete` is false when the walk
// stopped before the root (its buffer was full, or it failed part way). Every node the alignment passes is recorded
// in scratch.splices, with its run of frames or with none, so that the caller can tell how often each was seen.
ReconcileOutcome align(ThreadShadow& shadow, const SampleFrame* leaf_first, size_t count, bool complete,
                       ReconcileScratch& scratch, const std::vector<clr::FunctionID>& invisible,
                       uint64_t now_ticks);

}  // namespace umbra
