// Shadow mode's reconciliation bookkeeping: every reconcile interval, each thread's snapshot is aligned with its
// shadow stack under the same suspension (merge/reconcile.h), and afterwards the differences are counted, the runs
// of frames found between shadow nodes are remembered for the report, and the first unexplained difference is
// logged once with both stacks.
//
// Contract: the sampler thread only. prepare() runs before the suspension (it may allocate); on_walk() runs with
// the runtime suspended and allocates, locks and logs nothing; after_resume() runs under the sampler's tree mutex,
// which also guards totals(), splices() and first_unexplained() for other threads.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "hooks/shadow_pool.h"
#include "merge/reconcile.h"
#include "merge/splice_votes.h"
#include "names/function_names.h"
#include "sampler/stack_tick.h"

namespace umbra {

class Reconciliation final : public WalkObserver {
 public:
  explicit Reconciliation(FunctionNames& names);

  // Before suspending: the shadows to compare with (by ThreadID), the functions snapshots never show, empty buffers.
  void prepare(const ShadowPool& pool);
  // Runtime suspended: aligns the walk with the shadow of the same thread, if it has one.
  void on_walk(clr::ThreadID thread, const FrameSink& walk, bool complete) override;
  // Runtime resumed, under the sampler's tree mutex.
  void after_resume();

  const ReconcileCounts& totals() const { return total_; }
  const SpliceMap& splices() const { return splices_; }
  // Where stacks taken by signal vote too (merge/splice_votes.h).
  SpliceMap& splice_votes() { return splices_; }
  const std::string& first_unexplained() const { return first_unexplained_; }

 private:
  void classify_tailcall_dispatchers(const Splice& splice, const SampleFrame* frames);
  void keep_unexplained(const ThreadShadow& shadow, const FrameSink& walk, const ReconcileOutcome& outcome);
  std::string describe_unexplained();

  FunctionNames& names_;
  std::vector<std::pair<clr::ThreadID, ThreadShadow*>> shadows_by_id_;
  std::vector<SampleFrame> root_first_;
  ReservedArray<Splice> splice_buffer_;  // 3.5 MiB together, committed as used (zeroed, they were start-up's cost)
  ReservedArray<SampleFrame> splice_frame_buffer_;
  ReconcileScratch scratch_;
  std::vector<clr::FunctionID> invisible_;  // sorted; refreshed before suspending when it changed
  uint64_t invisible_generation_ = 0;
  ReconcileCounts tick_;
  ReconcileCounts total_;
  SpliceMap splices_;
  std::string first_unexplained_;
  // The first unexplained difference, kept under suspension (preallocated) to be logged after the resume.
  bool unexplained_pending_ = false;
  std::vector<clr::FunctionID> unexplained_shadow_;
  std::vector<SampleFrame> unexplained_snapshot_;
  uint32_t unexplained_shadow_at_ = 0, unexplained_snapshot_at_ = 0;
};

// --verify's lines at exit: the counts, and the first unexplained difference side by side when there was one.
std::vector<std::string> verify_summary(const ReconcileCounts& totals, const std::string& first_unexplained);

}  // namespace umbra
