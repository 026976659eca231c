// Samples taken at the moment of interruption: at each tick every thread that has run since its last sample is
// asked by signal for its whole stack (snapshot/native_capture.h, through_managed), with no suspension of the
// runtime, so a method is sampled wherever it runs, not only at the runtime's safe points.
// - Sampled mode (no shadow pool): each stack is a sample in its thread's sampled tree (SampledThread::tree).
// - Shadow mode: the handler also reads the thread's current shadow node, so each stack is aligned with the shadow
//   stack of that same instant: the frames above the innermost hooked frame (methods without hooks, native code)
//   become a sample in that node's sampled tree (with every method hooked, the native frames alone: a managed frame
//   there has not run its enter hook yet), and a thread running the hooked method itself is sampled on its
//   node; a thread with no hooked frame on its stack gets the sample in its own sampled tree. A stack that does not
//   align is counted on the shadow node alone, as a shadow sample would be (shadow_only_samples). Below the
//   innermost hooked frame, each hooked node on the way to the thread's start votes for the frames found between it
//   and its parent (merge/splice_votes.h): a callback's native caller, a native thread's start.
// check_against() compares the stacks the threads gave under a suspension with DoStackSnapshot's walks of the same
// moment (sampler/walk_comparison.h), and counts agreement and differences. A thread whose stacks by signal lose
// managed frames check after check (check_says_fall_back) is sampled from snapshot walks from then on: it is no longer
// signalled on ordinary ticks, the sampler suspends the runtime at every tick while such a thread lives, and each of
// its walks is its sample (threads_sampled_by_snapshot, samples_by_snapshot).
//
// Contract: the sampler thread only. capture() sends signals and sleeps until the threads answered (bounded);
// attribute() allocates and runs under the sampler's tree mutex, which the report takes to read the trees.
// GetFunctionFromIP is called outside any suspension, on the sampler thread, never in the handler.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "clr/corprof.h"
#include "hooks/shadow_pool.h"
#include "names/function_names.h"
#include "sampler/methods_by_ip.h"
#include "sampler/sampler_stats.h"
#include "sampler/signal_stack_alignment.h"
#include "sampler/stack_tick.h"
#include "sampler/walk_comparison.h"
#include "snapshot/sampled_tree.h"
#include "snapshot/scheduler_states.h"
#include "threads/thread_registry.h"

namespace umbra {

// The frames found above a hooked node: samples, no calls (the report grafts them under the node).
using AboveHooks = std::unordered_map<const CallNode*, SampledTree>;

class SignalSampling {
 public:
  // `shadows` and `splice_votes`: nullptr in sampled mode. `states`: the sampler's, outlives this.
  // `every_method_hooked`: full shadow mode, where only native frames are placed above a hooked node.
  SignalSampling(clr::ICorProfilerInfo10& info, ThreadRegistry& threads, SchedulerStates& states,
                 const ShadowPool* shadows, FunctionNames& names, SpliceMap* splice_votes = nullptr,
                 bool every_method_hooked = false);

  // Asks every thread that has run since its last sample for its stack, and waits for the answers.
  void capture(uint64_t tick_index, uint32_t interval_ms);
  // Counts this tick's samples (under the sampler's tree mutex).
  void attribute(SamplerStats& tick);
  // After a StackTick that also took stacks by signal under its suspension (StackTick::Options::signal_walks):
  // compares them with its walks, counts into `tick` (under the sampler's tree mutex).
  void check_against(const StackTick& walks, uint64_t tick_index, SamplerStats& tick);

  // The native IPs of the stacks attributed since the last call (the sampler names those it has not met yet).
  std::vector<uintptr_t> take_native_ips() { return std::exchange(native_ips_, {}); }

  const AboveHooks& above() const { return above_; }
  // Threads sampled from snapshot walks (sampled mode): while any is known, every tick must suspend and walk.
  size_t threads_sampled_by_snapshot() const { return sampled_by_snapshot_; }

 private:
  void attribute_stack(SampledThread& thread, bool on_cpu, SamplerStats& tick);
  void managed_stack_of(const NativeCapture& capture);
  static void make_room_if_truncated(NativeCapture& capture);
  bool scheduler_says_on_cpu(size_t target);
  bool drop_frames_walks_never_show();
  clr::FunctionID caller_on_top(const NativeCapture& capture, uintptr_t replaced_ip);
  SignalStackAlignment resolve_and_align(const NativeCapture& capture, const CallNode* node);
  ThreadShadow* shadow_of(clr::ThreadID id) const;
  void count_on_node(SampledThread& thread, CallNode* node, bool on_cpu, SamplerStats& tick);
  void count_on_shadow(SampledThread* thread, const ThreadShadow* shadow, bool on_cpu, SamplerStats& tick);
  void add_snapshot_sample(SampledThread& thread, const StackTick& walks, const StackTick::Walk& walk,
                           SamplerStats& tick);
  void note_check(SampledThread& thread, const WalkComparison& c, SamplerStats& tick);

  ThreadRegistry& threads_;
  SchedulerStates& states_;
  const ShadowPool* shadows_;
  SpliceMap* splice_votes_;
  const bool every_method_hooked_;
  MethodsByIp methods_;
  std::vector<std::shared_ptr<SampledThread>> targets_;
  enum class Asked : uint8_t { kNotAsked, kUnchanged, kAsked, kBySnapshot };
  std::vector<Asked> asked_;                   // per target, this tick
  struct CpuRead {
    uint64_t last = 0, now = 0;  // the thread's CPU time at its last sample and before this tick's signal (0: none)
  };
  std::vector<CpuRead> cpu_reads_;             // per target
  std::vector<const ThreadShadow*> covered_;   // shadows of this tick's targets
  std::vector<std::pair<clr::ThreadID, ThreadShadow*>> shadows_by_id_;
  std::vector<SampleFrame> leaf_first_;  // one stack, resolved
  std::vector<uintptr_t> native_ips_;
  std::vector<SampleFrame> root_first_;
  std::vector<SampleFrame> snapshot_;  // check_against: one walk's frames
  std::vector<SampleFrame> run_;       // vote_splices: one run, root first
  std::vector<clr::FunctionID> invisible_;  // sorted: methods the runtime's walks never show (names/function_names.h)
  uint64_t invisible_generation_ = 0;
  AboveHooks above_;
  FunctionNames& names_;
  size_t sampled_by_snapshot_ = 0;
};

}  // namespace umbra
