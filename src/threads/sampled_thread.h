// The part of a managed thread that the sampler touches: its OS id, the walk guard, the buffer its native top is
// captured into, and its sampled call tree.
//
// The walk guard (Dekker-style, sequentially consistent): the sampler sets `walking` and then checks `dying`;
// ThreadDestroyed sets `dying` and then waits for `walking` to clear. So a walk never starts on a dying thread and
// ThreadDestroyed never returns while a walk of its thread is in flight.
// Ownership: part of the thread's ThreadRecord (thread_record.h), which the registry keeps for the whole run and the
// sampler's per-tick target list shares, so nothing is freed while the sampler may still hold it.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

#include "clr/corprof.h"
#include "snapshot/native_capture.h"
#include "snapshot/sampled_tree.h"
#include "snapshot/stack_walk.h"

namespace umbra {

struct SampledThread {
  explicit SampledThread(clr::ThreadID id) : thread_id(id) {}

  const clr::ThreadID thread_id;
  std::atomic<pid_t> os_tid{0};
  std::atomic<bool> dying{false};
  std::atomic<bool> walking{false};
  NativeCapture capture;

  // Written only by the sampler, after ResumeRuntime, under the sampler's tree mutex.
  SampledTree tree;
  uint64_t managed_samples = 0;  // samples whose top frame was managed code
  uint64_t native_samples = 0;   // samples taken while the thread ran native code (a captured native top)

  // Sampler thread only. A thread that has used no CPU time since the reading taken just before its last walk
  // still has the stack that walk saw: the sampler counts that sample again instead of signalling and walking it.
  enum class LastWalk : uint8_t { kNone, kSample, kNoFrames };
  LastWalk last_walk = LastWalk::kNone;
  uint32_t last_leaf = 0;         // the tree node the last sample ended at
  bool last_native_top = false;   // it had a native top
  uint64_t cpu_ns_before_last_walk = 0;
  std::optional<uint64_t> cpu_ns_before_walk;  // this tick's reading, taken after the native-top capture
  bool unchanged = false;            // this tick: not run since the last walk; its last sample is counted again
  NativeRunCache native_runs;        // native runs its walks unwound (snapshot/native_run_cache.h)
  // Sampler thread only: whether the thread was on a CPU at this tick's sample (read before the native-top signal,
  // which wakes it; snapshot/scheduler_states.h).
  bool on_cpu = false;
  // Its CPU time as the sampler last read it (after the signal was answered, when one was sent, so that answering
  // does not count as running at the next tick): the report's CPU time of an ended thread. Atomic: a report may read
  // it while the sampler runs.
  std::atomic<uint64_t> cpu_ns_seen{0};

  // Sampler thread only, stacks taken by signal (sampler/signal_sampling.h): where the last stack taken by signal was
  // counted, to count it again while the thread's CPU time stands still.
  struct LastSignalSample {
    uint64_t cpu_ns = 0;          // the thread's CPU time after it answered
    SampledTree* tree = nullptr;  // the sampled tree and node it ended at, or
    uint32_t leaf = 0;
    CallNode* node = nullptr;     // the shadow node whose self samples it counted on; neither: no managed frame
    bool above_hooks = false;     // the tree is a hooked node's
    bool native_top = false;      // its leaf was native code
    StackEnd end = StackEnd::kThreadStart;  // sampled mode: where its stack ended (not at the start: incomplete)
  };
  std::optional<LastSignalSample> last_signal_sample;
  // Sampler thread only, walker by signal: the checks in a row in which the thread's stack by signal lost
  // managed frames against DoStackSnapshot's walk. Past a few, its samples come from snapshot walks to the end
  // (atomic: the report reads it).
  uint32_t walks_differing_in_a_row = 0;
  std::atomic<bool> sampled_by_snapshot{false};
  // Under the sampler's tree mutex, walker by signal: this thread's checks (the sampler's stats count all threads').
  uint64_t walks_checked = 0, walk_frames_checked = 0, walk_frames_agreed = 0;

  // Sampler side: true if the walk may proceed (end_walk must follow).
  bool begin_walk() {
    walking.store(true, std::memory_order_seq_cst);
    if (dying.load(std::memory_order_seq_cst)) {
      walking.store(false, std::memory_order_release);
      return false;
    }
    return true;
  }
  void end_walk() { walking.store(false, std::memory_order_release); }
};

}  // namespace umbra
