// The sampler thread: every interval (drawn from 0.5-1.5x the mean, so that periodic work is not sampled in
// lock-step) it takes one tick.
// - Sampled mode, walker by signal (the default): each thread's whole stack taken by signal where it runs
//   (SignalSampling), no suspension; every check interval (and at the first tick, which finds the threads that
//   started before umbra heard of them) a StackTick also takes them under a suspension and checks them against
//   DoStackSnapshot's walks.
// - Sampled mode, suspending walker (--walker suspend): a StackTick (native tops by signal, suspend, walk every managed thread,
//   resume), then SampledAttribution adds the stacks to each thread's SampledTree. Also where no signal is free.
// - Shadow mode: a sample on each thread's current shadow node (sample_shadows, no suspension), and every
//   reconcile interval a StackTick whose walks the Reconciliation aligns with the shadow stacks.
// - Focused shadow mode (not every method hooked): the samples are stacks taken by signal and aligned with the
//   shadow stacks (SignalSampling), so that code without hooks gets its samples; snapshots as in shadow mode.
//
// Contract:
// - The thread is umbra's own and never runs managed code; it calls InitializeCurrentThread once.
// - Between SuspendRuntime and ResumeRuntime nothing allocates, logs or takes a lock (stack_tick.h). No lock a hook
//   or callback may take is held across the suspension.
// - Trees and totals are updated after ResumeRuntime under tree_mutex(); the report takes that mutex to read them,
//   and stop() makes the sampler leave them alone for good, without waiting for it (the thread that stops it may
//   be one the sampler is waiting to suspend).
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_set>

#include "clr/corprof.h"
#include "hooks/shadow_pool.h"
#include "names/function_names.h"
#include "snapshot/native_symbols.h"
#include "sampler/reconciliation.h"
#include "sampler/sampled_attribution.h"
#include "sampler/sampler_stats.h"
#include "sampler/signal_sampling.h"
#include "sampler/stack_tick.h"
#include "snapshot/scheduler_states.h"
#include "threads/thread_registry.h"

namespace umbra {

struct SamplerOptions {
  uint32_t interval_ms = 10;
  ShadowPool* shadows = nullptr;  // shadow mode when set
  uint32_t reconcile_every = 10;  // shadow mode: a snapshot every this many ticks; 0: never
  bool stacks_by_signal = false;  // shadow mode: samples from stacks taken by signal (focused shadow mode)
  // Full shadow mode (every method hooked): stacks by signal for the native frames on top of the shadow stack and
  // between its frames.
  bool full_shadow_stacks_by_signal = false;
  // Sampled mode: stacks taken by signal (checked against a suspension's walks every reconcile_every ticks), or
  // a suspension and DoStackSnapshot at every tick.
  enum class Walker { kSuspend, kSignal };
  Walker walker = Walker::kSignal;
  // Every stack's native frames are named after the tick that first meets them (outlives the sampler).
  NativeSymbols* native_names = nullptr;
};

class Sampler {
 public:
  Sampler(clr::ICorProfilerInfo10& info, ThreadRegistry& threads, FunctionNames& names, SamplerOptions options);
  ~Sampler();
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  // Installs the native-top handler (sampled mode) and starts the thread.
  void start();
  // Ends sampling: after this returns the sampler never touches a tree again. Does not join.
  void stop();
  // Stops and waits until the thread has exited. Only from a thread the sampler can never wait for: one that never
  // runs managed code (umbra's own), since a tick may be waiting for every managed thread to reach a safe point.
  void stop_and_join();
  // After stop_and_join: waits (at most `wait`) until no native-top capture is running or on its way, then puts
  // back the signal handlers start() installed, so that umbra's code can leave the process. "" when done (or
  // there was nothing to undo), else why the handlers stay.
  std::string release_native_tops(std::chrono::milliseconds wait);
  // One interval's work, on the sampler thread (tests call it directly, without start()); `late_ns`: how long after
  // its scheduled time it began.
  void tick(uint64_t late_ns = 0);

  std::mutex& tree_mutex() { return tree_mutex_; }
  SamplerStats stats();                // takes tree_mutex()
  ReconcileCounts reconcile_counts();  // takes tree_mutex()
  // A copy, under tree_mutex(): a provisional report is written while the sampler runs on.
  SpliceMap splices();
  // Focused shadow mode's frames above hooked nodes (nullptr otherwise); read under tree_mutex().
  // Samples are stacks taken by signal (a real-time signal was free).
  bool stacks_by_signal() const { return signal_sampling_.has_value(); }
  const AboveHooks* above_hooks() const { return signal_sampling_ ? &signal_sampling_->above() : nullptr; }
  // The first unexplained difference, both stacks side by side (empty if none).
  std::string first_unexplained();

 private:
  void run();
  bool snapshot_due() const;
  void use_suspending_walker();
  void name_native_frame(uintptr_t ip);

  clr::ICorProfilerInfo10& info_;
  ThreadRegistry& threads_;
  FunctionNames& names_;
  SamplerOptions options_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
  uint64_t tick_index_ = 0;  // native tops are stamped with the tick they belong to
  // Sampled mode: whether a walk under a suspension has listed the runtime's threads (EnumThreads), which is how
  // threads that started before umbra heard of them become known (the main thread; every thread of an attach).
  bool threads_met_ = false;
  bool native_tops_ = false;
  // The sampler thread's: every frame of every tick is checked here, not under NativeSymbols' lock (which the
  // report takes too); a lock per frame instead made the web API's ticks about 6% dearer.
  std::unordered_set<uintptr_t> native_frames_named_;

  SchedulerStates scheduler_states_;  // the sampler thread's; before what refers to it
  std::optional<StackTick> stack_tick_;
  std::optional<SampledAttribution> attribution_;     // sampled mode, suspending walker
  std::optional<Reconciliation> reconciliation_;      // shadow mode; its state is under tree_mutex_
  std::optional<SignalSampling> signal_sampling_;     // walker by signal, focused shadow mode; under tree_mutex_

  std::mutex tree_mutex_;
  bool stopped_ = false;  // under tree_mutex_
  SamplerStats stats_;    // under tree_mutex_
};

}  // namespace umbra
