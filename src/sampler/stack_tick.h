// Taking a tick: the native tops of the threads to sample are captured by signal (sampled mode with the suspending
// walker), the runtime is suspended, every known managed thread is walked with DoStackSnapshot, and the runtime is
// resumed. With signal_walks, each thread is also asked by signal for its whole stack while the runtime is
// suspended, so that the walker by signal can be checked against the runtime's own walk of the same moment.
//
// Contract:
// - The sampler thread only. prepare() allocates; take() allocates nothing, logs nothing and takes no lock between
//   SuspendRuntime and ResumeRuntime (targets, walks and the frame buffer are prepared before it suspends).
// - A thread's walk runs under its walk guard (SampledThread::begin_walk), so ThreadDestroyed never returns while
//   it is walked; the observer (shadow mode's reconciliation) is called inside that guard, runtime suspended.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "clr/corprof.h"
#include "hooks/region.h"
#include "sampler/sampler_stats.h"
#include "snapshot/sampled_tree.h"
#include "snapshot/scheduler_states.h"
#include "snapshot/stack_walk.h"
#include "threads/thread_registry.h"

namespace umbra {

// Told of each thread walked, with the runtime suspended: must not allocate, lock or log.
class WalkObserver {
 public:
  virtual void on_walk(clr::ThreadID thread, const FrameSink& walk, bool complete) = 0;

 protected:
  ~WalkObserver() = default;
};

// The stamp of the captures a tick asks for under its suspension (signal_walks), apart from the ones the same tick
// asked for before suspending, whose late answers must not pass for them.
constexpr uint64_t suspended_capture_stamp(uint64_t tick_index) { return tick_index | (uint64_t(1) << 63); }

class StackTick {
 public:
  // What one thread's walk left in frames(): leaf first.
  struct Walk {
    std::shared_ptr<SampledThread> thread;
    size_t first = 0, count = 0;
    uintptr_t first_managed_ip = 0;
    clr::FunctionID first_managed_function = 0;
    bool truncated = false;
    bool unchanged = false;  // not walked: the thread has not run since its last walk; its last sample counts again
  };

  struct Options {
    bool native_tops = false;     // capture native tops by signal before suspending (sampled mode)
    bool skip_unchanged = false;  // threads that have used no CPU time since their last walk are not walked again
    bool keep_walks = true;       // keep the frames for attribution (shadow mode only compares them)
    bool cpu_states = false;      // find which threads are on a CPU (SampledThread::on_cpu; sampled mode)
    uint32_t interval_ms = 10;    // bounds the wait for native-top answers
    bool signal_walks = false;    // under the suspension, each thread's whole stack by signal too (before its walk)
  };

  // `states`: the sampler's, outlives this.
  StackTick(clr::ICorProfilerInfo10& info, ThreadRegistry& threads, SchedulerStates& states, Options options);
  // Once a signal is known to be free for native-top capture.
  void enable_native_tops(bool enabled) { options_.native_tops = enabled; }

  // Before suspending: this tick's targets and buffers (allocates).
  void prepare();
  // Captures the native tops, suspends, walks, resumes; counts into `tick`. `observer` may be nullptr. Does not
  // suspend once `stopping` is set.
  void take(uint64_t tick_index, SamplerStats& tick, WalkObserver* observer, const std::atomic<bool>& stopping);
  // After resuming: threads the walk met before their ThreadCreated (the main thread) are sampled from now on.
  void register_unknown_threads();

  const std::vector<Walk>& walks() const { return walks_; }
  const SampleFrame* frames() const { return frames_.data(); }
  const std::vector<std::shared_ptr<SampledThread>>& targets() const { return targets_; }

 private:
  void read_threads_before_signals();
  void capture_native_tops(uint64_t tick_index);
  void capture_whole_stacks(uint64_t tick_index);
  void read_cpu_before_walks();
  void walk_suspended(SamplerStats& tick, WalkObserver* observer);
  const std::shared_ptr<SampledThread>* target_of(clr::ThreadID id) const;

  clr::ICorProfilerInfo10& info_;
  ThreadRegistry& threads_;
  SchedulerStates& states_;
  Options options_;
  std::vector<std::shared_ptr<SampledThread>> targets_;  // sorted by ThreadID
  std::vector<Walk> walks_;
  // Committed as walks fill it: 4 MiB zeroed at start-up cost the program's main thread 4-5 ms.
  ReservedArray<SampleFrame> frames_;
  std::vector<clr::ThreadID> enumerated_;
  std::vector<clr::ThreadID> unknown_;
};

}  // namespace umbra
