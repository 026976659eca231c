// A stack taken by signal against DoStackSnapshot's walk of the same stopped moment: how many of the snapshot's
// managed frames the signal walk found, in order, and if not all, the first way in which they differ. Only managed
// frames count: the two walks unwind native code differently, and the runtime's own frames of a suspended thread
// are above its managed ones only in the signal walk. Pure: the sampler resolves both walks' frames first.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "snapshot/sampled_tree.h"

namespace umbra {

enum class WalkDifference : size_t {
  kMissingLeafCaller,  // only the frame below the leaf is missing (a frameless leaf's caller)
  kMissingLeaf,        // the snapshot's innermost frames are missing (the signal walk ends below them)
  kMissingFrames,      // frames further down are missing (the frame-pointer chain skipped or lost them)
  kExtraFrames,        // the signal walk has managed frames the snapshot does not
  kTruncated,          // the signal walk stopped at its frame limit (compared on the frames it holds)
  kFaulted,            // the signal walk faulted (a corrupt chain)
  kNoAnswer,           // the thread did not answer the signal in time (its frames are not counted as checked)
  kLoaderBusy,         // not unwound: the dynamic loader was changing its objects (frames not counted as checked)
  kSignalBlocked,      // stopped with the signal blocked (inside the runtime's activation handler): it answers only
                       // after the resume, so it was not waited for (frames not counted as checked)
  kCount
};

inline constexpr size_t kWalkDifferenceCount = static_cast<size_t>(WalkDifference::kCount);
inline constexpr std::array<std::string_view, kWalkDifferenceCount> kWalkDifferenceNames = {
    "missing_leaf_caller", "missing_leaf", "missing_frames", "extra_frames", "truncated", "faulted", "no_answer",
    "loader_busy", "signal_blocked"};

struct WalkComparison {
  uint32_t frames = 0;  // the snapshot's managed frames
  uint32_t agreed = 0;  // of those, found in the signal walk in the same order
  bool differs = false;
  WalkDifference difference = WalkDifference::kMissingFrames;  // the first, counted from the root (if `differs`)
};

// A thread whose stack by signal loses managed frames below its leaf check after check is one the frame-pointer
// chain does not walk well (code the handler's recoveries do not cover): its walks are to be trusted instead. Notes
// one check of the thread in `in_a_row` (its checks in a row that lost frames; an agreeing one starts it again) and
// says whether that makes kFallBackAfter. Differences that say nothing of the chain at an ordinary tick neither count
// nor break a run: no answer, the loader busy, a full buffer, only a frameless leaf's caller, a missing leaf (a thread
// the suspension stopped by hijacking its return address shows the runtime's stub where its leaf returns) and extra
// frames (Workloads split: 67 of 297 walks, with 99.2% of the frames agreeing).
inline constexpr uint32_t kFallBackAfter = 3;
bool check_says_fall_back(const WalkComparison& c, uint32_t& in_a_row);

// Both stacks leaf first; native frames are skipped.
WalkComparison compare_walks(const SampleFrame* snapshot, size_t snapshot_count, const SampleFrame* signal,
                             size_t signal_count);

}  // namespace umbra
