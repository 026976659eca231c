#include "sampler/walk_comparison.h"

#include <vector>

namespace umbra {
namespace {

// A frame the chain skipped is found again a few frames on; no resynchronisation is looked for further than this.
constexpr size_t kLookahead = 8;

// The managed frames, root first.
void managed_root_first(const SampleFrame* leaf_first, size_t count, std::vector<uintptr_t>& out) {
  out.clear();
  for (size_t i = count; i-- > 0;)
    if (!leaf_first[i].native) out.push_back(leaf_first[i].id);
}

// How far on in `in` (from `from`) `id` is, 0 if not within the lookahead.
size_t distance_to(const std::vector<uintptr_t>& in, size_t from, uintptr_t id) {
  for (size_t k = 1; k <= kLookahead && from + k < in.size(); ++k)
    if (in[from + k] == id) return k;
  return 0;
}

}  // namespace

WalkComparison compare_walks(const SampleFrame* snapshot_frames, size_t snapshot_count, const SampleFrame* signal_frames,
                             size_t signal_count) {
  thread_local std::vector<uintptr_t> snapshot, signal;
  managed_root_first(snapshot_frames, snapshot_count, snapshot);
  managed_root_first(signal_frames, signal_count, signal);
  WalkComparison result;
  result.frames = uint32_t(snapshot.size());
  auto note = [&](WalkDifference d) {
    if (!result.differs) {
      result.differs = true;
      result.difference = d;
    }
  };
  // From the root up, in step; where they part, the side whose frame comes back first on the other side has extra
  // frames (a snapshot frame found a little further on in the signal walk: extra signal frames; the reverse:
  // snapshot frames the signal walk skipped).
  size_t a = 0, b = 0;
  while (a < snapshot.size() && b < signal.size()) {
    if (snapshot[a] == signal[b]) {
      ++result.agreed;
      ++a, ++b;
      continue;
    }
    size_t skipped = distance_to(snapshot, a, signal[b]);
    size_t extra = distance_to(signal, b, snapshot[a]);
    if (extra != 0 && (skipped == 0 || extra < skipped)) {
      note(WalkDifference::kExtraFrames);
      b += extra;
    } else if (skipped != 0) {
      // One frame skipped just below the snapshot's leaf: the leaf ran without a frame of its own.
      bool leaf_caller = skipped == 1 && a + 2 == snapshot.size();
      note(leaf_caller ? WalkDifference::kMissingLeafCaller : WalkDifference::kMissingFrames);
      a += skipped;
    } else {
      note(WalkDifference::kMissingFrames);  // different frames here: neither comes back
      ++a, ++b;
    }
  }
  if (a < snapshot.size()) note(WalkDifference::kMissingLeaf);
  else if (b < signal.size()) note(WalkDifference::kExtraFrames);
  return result;
}

bool check_says_fall_back(const WalkComparison& c, uint32_t& in_a_row) {
  if (!c.differs) {
    in_a_row = 0;
    return false;
  }
  if (c.difference != WalkDifference::kMissingFrames && c.difference != WalkDifference::kFaulted) return false;
  return ++in_a_row >= kFallBackAfter;
}

}  // namespace umbra
