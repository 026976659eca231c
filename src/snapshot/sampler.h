// The sampler thread: every interval it captures the native top of each known thread (by signal), suspends the
// runtime, walks every managed thread with DoStackSnapshot, resumes, and then adds the stacks to each thread's
// SampledTree.
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
#include <atomic>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "clr/corprof.h"
#include "merge/function_names.h"
#include "snapshot/sample_drop.h"
#include "snapshot/sampled_tree.h"
#include "threads/thread_registry.h"

namespace umbra {

struct SamplerStats {
  uint64_t ticks = 0;
  uint64_t samples = 0;
  uint64_t suspended_ns_total = 0;
  uint64_t suspended_ns_max = 0;
  uint64_t suspensions = 0;
  uint64_t tick_ns_total = 0;  // whole ticks: native tops, suspension, walks, attribution
  uint64_t tick_ns_max = 0;
  std::array<uint64_t, kSampleDropCount> drops{};
  bool native_tops = false;  // a signal was free for native-top capture
};

class Sampler {
 public:
  Sampler(clr::ICorProfilerInfo10& info, ThreadRegistry& threads, FunctionNames& names, uint32_t interval_ms);
  ~Sampler();
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  void start();
  // Ends sampling: after this returns the sampler never touches a tree again. Does not join.
  void stop();

  std::mutex& tree_mutex() { return tree_mutex_; }
  SamplerStats stats();  // takes tree_mutex()

 private:
  struct Walk {
    std::shared_ptr<SampledThread> thread;
    size_t first = 0, count = 0;
    uintptr_t first_managed_ip = 0;
    bool native_top = false;
  };

  void run();
  void tick();
  void capture_native_tops();
  void walk_suspended();
  void attribute();
  void count(SampleDrop reason) { ++tick_.drops[static_cast<size_t>(reason)]; }

  clr::ICorProfilerInfo10& info_;
  ThreadRegistry& threads_;
  FunctionNames& names_;
  const uint32_t interval_ms_;
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
};

}  // namespace umbra
