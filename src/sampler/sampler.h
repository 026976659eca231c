// The sampler thread. Sampled mode: every interval it captures the native top of each known thread (by signal),
// suspends the runtime, walks every managed thread with DoStackSnapshot, resumes, and then adds the stacks to each
// thread's SampledTree. A thread that has used no CPU time since its last walk is neither signalled nor walked:
// its last sample is counted again. Shadow mode: every interval it counts a sample on each thread's current shadow
// node (one load, no suspension), and every reconcile interval it takes a snapshot and aligns it with the shadow
// stack of the same thread, under the same suspension (merge/reconcile.h).
//
// Contract:
// - The thread is umbra's own and never runs managed code; it calls InitializeCurrentThread once.
// - Between SuspendRuntime and ResumeRuntime it allocates nothing, logs nothing and takes no lock (target list and
//   frame buffer are prepared before suspending). No lock a hook or callback may take is held across the
//   suspension.
// - Trees are updated after ResumeRuntime under tree_mutex(); the report takes that mutex to read them, and
//   stop() makes the sampler leave them alone for good, without waiting for it (the thread that stops it may be
//   one the sampler is waiting to suspend).
#pragma once

#include <array>
#include <string>
#include <unordered_map>
#include <atomic>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "clr/corprof.h"
#include "hooks/shadow_pool.h"
#include "names/function_names.h"
#include "merge/reconcile.h"
#include "snapshot/sample_drop.h"
#include "snapshot/sampled_tree.h"
#include "snapshot/stack_walk.h"
#include "threads/thread_registry.h"

namespace umbra {

struct SamplerStats {
  uint64_t ticks = 0;
  uint64_t samples = 0;
  uint64_t unchanged_samples = 0;  // sampled mode: of threads that had not run since their last walk (not walked)
  uint64_t suspended_ns_total = 0;
  uint64_t suspended_ns_max = 0;
  uint64_t suspensions = 0;
  uint64_t suspend_wait_ns_total = 0;  // inside SuspendRuntime: waiting for every thread to reach a safe point
  uint64_t tick_ns_total = 0;  // whole ticks: native tops, suspension, walks, attribution
  uint64_t tick_ns_max = 0;
  uint64_t shadow_sample_ns_total = 0;  // shadow mode: counting each thread's current node
  uint64_t snapshot_ticks = 0;          // ticks that suspended the runtime
  uint64_t snapshot_ns_total = 0;       // their whole cost (in shadow mode: the reconciliation)
  // The sampler thread's own CPU time so far, its sleeps and wake-ups included: on a machine whose cores are all
  // busy, CPU time the program does not get.
  uint64_t cpu_ns_total = 0;
  std::array<uint64_t, kSampleDropCount> drops{};
  bool native_tops = false;  // a signal was free for native-top capture
};

struct SamplerOptions {
  uint32_t interval_ms = 10;
  ShadowPool* shadows = nullptr;  // shadow mode when set
  uint32_t reconcile_every = 10;  // shadow mode: a snapshot every this many ticks; 0: never
};

// Runs of frames found between a shadow node and its parent (root first), with how often each reconcile saw the
// node with its run and with nothing between. The report shows the run when it was seen at least half the time.
struct RememberedSplice {
  std::vector<SampleFrame> frames;
  uint64_t seen_with = 0;
  uint64_t seen_without = 0;
  bool shown() const { return !frames.empty() && seen_with >= seen_without; }
};
using SpliceMap = std::unordered_map<const CallNode*, RememberedSplice>;

class Sampler {
 public:
  Sampler(clr::ICorProfilerInfo10& info, ThreadRegistry& threads, FunctionNames& names, SamplerOptions options);
  ~Sampler();
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  void start();
  // Ends sampling: after this returns the sampler never touches a tree again. Does not join.
  void stop();

  std::mutex& tree_mutex() { return tree_mutex_; }
  SamplerStats stats();  // takes tree_mutex()
  ReconcileCounts reconcile_counts();  // takes tree_mutex()
  // A copy, under tree_mutex(): a provisional report is written while the sampler runs on.
  SpliceMap splices();
  // The first unexplained difference, both stacks side by side (empty if none).
  std::string first_unexplained();

 private:
  struct Walk {
    std::shared_ptr<SampledThread> thread;
    size_t first = 0, count = 0;
    uintptr_t first_managed_ip = 0;
    clr::FunctionID first_managed_function = 0;
    bool truncated = false;
    bool unchanged = false;  // not walked: its last sample is counted again
  };
  enum class NativeTop { kNone, kStitched, kLost };

  void run();
  void tick();
  void shadow_sample();
  void reconcile_walk(clr::ThreadID id, const FrameSink& sink, bool complete);
  void after_reconcile();
  void find_unchanged_threads();
  void capture_native_tops();
  void read_cpu_before_walks();
  void walk_suspended();
  void attribute();
  NativeTop stitch_native_top(NativeCapture& capture, const Walk& walk);
  void count(SampleDrop reason) { ++tick_.drops[static_cast<size_t>(reason)]; }

  clr::ICorProfilerInfo10& info_;
  ThreadRegistry& threads_;
  FunctionNames& names_;
  const SamplerOptions options_;
  uint64_t tick_index_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread thread_;

  std::mutex tree_mutex_;
  bool stopped_ = false;  // under tree_mutex_
  SamplerStats stats_;    // under tree_mutex_
  SamplerStats tick_;     // the current tick's counts, sampler thread only; added to stats_ after each tick
  uint64_t tick_start_ns_ = 0;

  // Prepared before each suspension: the targets (sorted by ThreadID), the walks, and one frame buffer.
  std::vector<std::shared_ptr<SampledThread>> targets_;
  std::vector<Walk> walks_;
  std::vector<SampleFrame> frames_;
  std::vector<clr::ThreadID> enumerated_;
  std::vector<clr::ThreadID> unknown_;
  std::vector<SampleFrame> stack_;  // scratch for one stitched stack

  // Shadow mode.
  std::vector<std::pair<clr::ThreadID, ThreadShadow*>> shadows_by_id_;  // prepared before suspending
  std::vector<SampleFrame> reconcile_frames_;
  std::vector<Splice> splice_buffer_;
  std::vector<SampleFrame> splice_frame_buffer_;
  ReconcileScratch scratch_;
  std::vector<clr::FunctionID> invisible_;  // sorted; refreshed before suspending when it changed
  uint64_t invisible_generation_ = 0;
  ReconcileCounts reconcile_tick_;
  ReconcileCounts reconcile_total_;  // under tree_mutex_
  SpliceMap splices_;                // under tree_mutex_
  std::string first_unexplained_;    // under tree_mutex_
  bool unexplained_pending_ = false;
  std::vector<clr::FunctionID> unexplained_shadow_;
  std::vector<SampleFrame> unexplained_snapshot_;
  uint32_t unexplained_shadow_at_ = 0, unexplained_snapshot_at_ = 0;
};

}  // namespace umbra
