#include "merge/reconcile.h"

#include <algorithm>

namespace umbra {
namespace {

// The next managed frame at or after `from` in a root-first snapshot, or `count`.
size_t next_managed(const SampleFrame* frames, size_t count, size_t from) {
  while (from < count && frames[from].native) ++from;
  return from;
}

bool record_splice(ReconcileScratch& s, const CallNode* node, const SampleFrame* frames, size_t first, size_t end,
                   bool native) {
  if (first > end) return true;
  size_t n = end - first;
  if (s.splice_count == s.splice_capacity || s.splice_frame_count + n > s.splice_frame_capacity) return false;
  for (size_t i = 0; i < n; ++i) s.splice_frames[s.splice_frame_count + i] = frames[first + i];
  s.splices[s.splice_count++] = {node, uint32_t(s.splice_frame_count), uint32_t(n), native};
  s.splice_frame_count += n;
  return true;
}

}  // namespace

void ReconcileCounts::add(const ReconcileCounts& o) {
  snapshots += o.snapshots;
  frames_compared += o.frames_compared;
  unexplained += o.unexplained;
  skipped_exception_in_flight += o.skipped_exception_in_flight;
  skipped_truncated += o.skipped_truncated;
  splices_lost += o.splices_lost;
  unseen_top_frames += o.unseen_top_frames;
  for (size_t i = 0; i < repairs.size(); ++i) repairs[i] += o.repairs[i];
  for (size_t i = 0; i < spliced.size(); ++i) spliced[i] += o.spliced[i];
  for (size_t i = 0; i < kept.size(); ++i) kept[i] += o.kept[i];
}

ReconcileOutcome align(ThreadShadow& shadow, const SampleFrame* leaf_first, size_t count, bool complete,
                       ReconcileScratch& scratch, const std::vector<clr::FunctionID>& invisible,
                       uint64_t now_ticks) {
  auto is_invisible = [&](uint32_t frame) {
    return std::binary_search(invisible.begin(), invisible.end(), shadow.frame_function(frame));
  };
  ReconcileOutcome out;
  if (shadow.exception_active() || shadow.overflowed()) {
    ++out.counts.skipped_exception_in_flight;
    return out;
  }
  if (!complete || count > scratch.capacity) {
    // Aligned from the root, a walk missing its root frames would make live frames look stale.
    ++out.counts.skipped_truncated;
    return out;
  }
  SampleFrame* snap = scratch.root_first;
  for (size_t i = 0; i < count; ++i) snap[i] = leaf_first[count - 1 - i];
  out.counts.snapshots = 1;

  const uint32_t depth = shadow.depth();
  uint32_t i = 0;                          // shadow frame
  size_t j = next_managed(snap, count, 0);  // snapshot managed frame; native frames below the first are the host's
  size_t segment_start = j;                // first frame after the previous managed one
  while (i < depth && j < count) {
    if (shadow.frame_function(i) == snap[j].id) {
      const CallNode* node = shadow.frame_node(i);
      if (i > 0 && node->function != kTreeFullFunction) {
        // Every comparison votes: with the run found here, or with nothing between the node and its parent.
        if (!record_splice(scratch, node, snap, segment_start, j, true)) ++out.counts.splices_lost;
        if (segment_start < j) ++out.counts.spliced[size_t(ReconcileSplice::kNativeSegment)];
      }
      ++out.counts.frames_compared;
      ++i;
      segment_start = j + 1;
      j = next_managed(snap, count, j + 1);
      continue;
    }
    if (is_invisible(i)) {
      ++out.counts.kept[size_t(ReconcileKept::kInvisibleFrame)];
      ++i;
      continue;
    }
    // Shadow frames missing from the snapshot here (k), or snapshot frames missing from the shadow (l)?
    uint32_t k = i + 1;
    while (k < depth && shadow.frame_function(k) != snap[j].id) ++k;
    size_t l = next_managed(snap, count, j + 1);
    size_t extra_managed = 1;
    while (l < count && snap[l].id != shadow.frame_function(i)) {
      l = next_managed(snap, count, l + 1);
      ++extra_managed;
    }
    if (k < depth && (l >= count || k - i <= extra_managed)) {
      out.counts.kept[size_t(ReconcileKept::kStaleMiddleFrame)] += k - i;
      i = k;
    } else if (l < count) {
      // Managed frames the hooks never saw (classified after the resume: dispatcher or uninstrumented).
      if (shadow.frame_node(i)->function != kTreeFullFunction &&
          !record_splice(scratch, shadow.frame_node(i), snap, j, l, false))
        ++out.counts.splices_lost;
      out.counts.spliced[size_t(ReconcileSplice::kUninstrumented)] += extra_managed;
      segment_start = l;
      j = l;
    } else {
      out.unexplained = true;
      ++out.counts.unexplained;
      out.shadow_at = i;
      out.snapshot_at = uint32_t(j);
      return out;
    }
  }
  for (; j < count; j = next_managed(snap, count, j + 1)) ++out.counts.unseen_top_frames;
  bool invisible_above = false;
  for (uint32_t q = i; q < depth; ++q) invisible_above |= is_invisible(q);
  if (i < depth && invisible_above) {
    // Frames snapshots cannot show are above the snapshot's top (an exception being dispatched, an IL stub):
    // what lies there cannot be judged from this snapshot.
    out.counts.kept[size_t(ReconcileKept::kInvisibleFrame)] += depth - i;
  } else if (i < depth) {
    // The real stack ends below the shadow's top: those frames returned without a leave.
    out.counts.repairs[size_t(ReconcileRepair::kMissedLeave)] += depth - i;
    shadow.repair_truncate(i, now_ticks);
  }
  return out;
}

}  // namespace umbra
