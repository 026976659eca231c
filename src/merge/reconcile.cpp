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

namespace {

// One alignment: the shadow stack and the snapshot walked together from the root.
class Alignment {
 public:
  Alignment(ThreadShadow& shadow, const SampleFrame* root_first, size_t count, ReconcileScratch& scratch,
            const std::vector<clr::FunctionID>& invisible, ReconcileOutcome& out)
      : shadow_(shadow), snap_(root_first), count_(count), scratch_(scratch), invisible_(invisible), out_(out),
        depth_(shadow.depth()),
        snapshot_at_(next_managed(root_first, count, 0)),  // native frames below the first are the host's
        run_start_(snapshot_at_) {}

  // Aligns up to the top of either stack. False at a difference nothing explains (recorded in the outcome).
  bool walk() {
    while (shadow_at_ < depth_ && snapshot_at_ < count_) {
      if (shadow_.frame_function(shadow_at_) == snap_[snapshot_at_].id) {
        match();
      } else if (invisible(shadow_at_)) {
        ++out_.counts.kept[size_t(ReconcileKept::kInvisibleFrame)];
        ++shadow_at_;
      } else if (!explain_difference()) {
        out_.unexplained = true;
        ++out_.counts.unexplained;
        out_.shadow_at = shadow_at_;
        out_.snapshot_at = uint32_t(snapshot_at_);
        return false;
      }
    }
    return true;
  }

  // What is left above the top of either stack.
  void finish(uint64_t now_ticks) {
    for (; snapshot_at_ < count_; snapshot_at_ = next_managed(snap_, count_, snapshot_at_ + 1))
      ++out_.counts.unseen_top_frames;
    if (shadow_at_ == depth_) return;
    bool invisible_above = false;
    for (uint32_t f = shadow_at_; f < depth_; ++f) invisible_above |= invisible(f);
    if (invisible_above) {
      // Frames snapshots cannot show are above the snapshot's top (an exception being dispatched, an IL stub):
      // what lies there cannot be judged from this snapshot.
      out_.counts.kept[size_t(ReconcileKept::kInvisibleFrame)] += depth_ - shadow_at_;
    } else {
      // The real stack ends below the shadow's top: those frames returned without a leave.
      out_.counts.repairs[size_t(ReconcileRepair::kMissedLeave)] += depth_ - shadow_at_;
      shadow_.repair_truncate(shadow_at_, now_ticks);
    }
  }

 private:
  bool invisible(uint32_t shadow_frame) const {
    return std::binary_search(invisible_.begin(), invisible_.end(), shadow_.frame_function(shadow_frame));
  }

  void record(const CallNode* node, size_t first, size_t end, bool native) {
    if (!record_splice(scratch_, node, snap_, first, end, native)) ++out_.counts.splices_lost;
  }

  // The same frame on both stacks. Every comparison votes: with the run of native frames found between the node
  // and its parent here, or with nothing between them.
  void match() {
    const CallNode* node = shadow_.frame_node(shadow_at_);
    if (shadow_at_ > 0 && node->function != kTreeFullFunction) {
      record(node, run_start_, snapshot_at_, true);
      if (run_start_ < snapshot_at_) ++out_.counts.spliced[size_t(ReconcileSplice::kNativeSegment)];
    }
    ++out_.counts.frames_compared;
    ++shadow_at_;
    run_start_ = snapshot_at_ + 1;
    snapshot_at_ = next_managed(snap_, count_, snapshot_at_ + 1);
  }

  // Either shadow frames missing from the snapshot here (stale: kept), or snapshot frames missing from the shadow
  // (managed frames the hooks never saw: spliced in), whichever skips fewer frames. False if neither fits.
  bool explain_difference() {
    uint32_t shadow_resumes = shadow_at_ + 1;  // where the snapshot's frame appears further up the shadow
    while (shadow_resumes < depth_ && shadow_.frame_function(shadow_resumes) != snap_[snapshot_at_].id)
      ++shadow_resumes;
    size_t snapshot_resumes = next_managed(snap_, count_, snapshot_at_ + 1);  // ... the shadow's frame, the snapshot
    size_t unseen_managed = 1;
    while (snapshot_resumes < count_ && snap_[snapshot_resumes].id != shadow_.frame_function(shadow_at_)) {
      snapshot_resumes = next_managed(snap_, count_, snapshot_resumes + 1);
      ++unseen_managed;
    }
    bool stale_fits = shadow_resumes < depth_;
    bool unseen_fits = snapshot_resumes < count_;
    if (stale_fits && (!unseen_fits || shadow_resumes - shadow_at_ <= unseen_managed)) {
      out_.counts.kept[size_t(ReconcileKept::kStaleMiddleFrame)] += shadow_resumes - shadow_at_;
      shadow_at_ = shadow_resumes;
      return true;
    }
    if (!unseen_fits) return false;
    // Classified after the resume: the tail-call dispatcher, or uninstrumented code.
    const CallNode* node = shadow_.frame_node(shadow_at_);
    if (node->function != kTreeFullFunction) record(node, snapshot_at_, snapshot_resumes, false);
    out_.counts.spliced[size_t(ReconcileSplice::kUninstrumented)] += unseen_managed;
    run_start_ = snapshot_resumes;
    snapshot_at_ = snapshot_resumes;
    return true;
  }

  ThreadShadow& shadow_;
  const SampleFrame* snap_;
  const size_t count_;
  ReconcileScratch& scratch_;
  const std::vector<clr::FunctionID>& invisible_;
  ReconcileOutcome& out_;
  const uint32_t depth_;
  uint32_t shadow_at_ = 0;  // the next shadow frame to align
  size_t snapshot_at_;      // the next managed snapshot frame to align
  size_t run_start_;        // the first snapshot frame after the last one matched
};

}  // namespace

ReconcileOutcome align(ThreadShadow& shadow, const SampleFrame* leaf_first, size_t count, bool complete,
                       ReconcileScratch& scratch, const std::vector<clr::FunctionID>& invisible,
                       uint64_t now_ticks) {
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
  SampleFrame* root_first = scratch.root_first;
  for (size_t i = 0; i < count; ++i) root_first[i] = leaf_first[count - 1 - i];
  out.counts.snapshots = 1;
  Alignment alignment(shadow, root_first, count, scratch, invisible, out);
  if (alignment.walk()) alignment.finish(now_ticks);
  return out;
}

}  // namespace umbra
