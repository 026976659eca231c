// What the sampler counts: per tick, then added into the totals the report shows (stats.sampler).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include "sampler/walk_comparison.h"
#include "snapshot/sample_drop.h"
#include "snapshot/stack_end.h"

namespace umbra {

struct SamplerStats {
  uint64_t ticks = 0;
  uint64_t samples = 0;
  uint64_t unchanged_samples = 0;  // of threads that had not run since their last walk or signal (not asked again)
  // Focused shadow mode: samples whose stack, taken by signal, had frames above the innermost hooked one, and
  // samples counted on the shadow node alone (the stack did not align with the shadow stack, or came too late).
  uint64_t above_hooks_samples = 0;
  uint64_t shadow_only_samples = 0;
  uint64_t suspended_ns_total = 0;
  uint64_t suspended_ns_max = 0;
  uint64_t suspensions = 0;
  uint64_t suspend_wait_ns_total = 0;  // inside SuspendRuntime: waiting for every thread to reach a safe point
  uint64_t tick_ns_total = 0;  // whole ticks: native tops, suspension, walks, attribution
  uint64_t tick_ns_max = 0;
  // How long after its scheduled time each tick began: a sampler that waits for a CPU samples late, and where the
  // thread it waited for stopped (util/prompt_wakeups.h).
  uint64_t late_ns_total = 0;
  uint64_t late_ns_max = 0;
  uint64_t shadow_sample_ns_total = 0;  // shadow mode: counting each thread's current node
  uint64_t snapshot_ticks = 0;          // ticks that suspended the runtime
  uint64_t snapshot_ns_total = 0;       // their whole cost (in shadow mode: the reconciliation)
  // The sampler thread's own CPU time so far, its sleeps and wake-ups included: on a machine whose cores are all
  // busy, CPU time the program does not get.
  uint64_t cpu_ns_total = 0;
  std::array<uint64_t, kSampleDropCount> drops{};
  // Sampled mode, walker by signal: samples whose stack stopped short of its thread's start, kept under the marker
  // root "[stack incomplete]", by why it stopped (the thread_start entry stays 0).
  std::array<uint64_t, kStackEndCount> incomplete_stacks{};
  // Stacks taken by signal under a suspension, checked against DoStackSnapshot's walks of the same moment: walks
  // and their managed frames, how many agreed, and the walks that differed by their first difference.
  uint64_t walks_checked = 0, walks_agreed = 0, walk_frames_checked = 0, walk_frames_agreed = 0;
  std::array<uint64_t, kWalkDifferenceCount> walk_differences{};
  // Threads whose stacks by signal differed check after check, sampled from snapshot walks since, and those samples.
  uint64_t threads_sampled_by_snapshot = 0, samples_by_snapshot = 0;
  bool native_tops = false;  // a signal was free for native-top capture

  void count(SampleDrop reason) { ++drops[static_cast<size_t>(reason)]; }
  void count_incomplete(StackEnd end) { ++incomplete_stacks[static_cast<size_t>(end)]; }
  void add_walk_check(const WalkComparison& c) {
    ++walks_checked;
    walk_frames_checked += c.frames;
    walk_frames_agreed += c.agreed;
    if (c.differs) ++walk_differences[static_cast<size_t>(c.difference)];
    else ++walks_agreed;
  }

  // Adds one tick's counts (totals summed, maxima kept; cpu_ns_total and native_tops are set, not added).
  void add_tick(const SamplerStats& tick) {
    static constexpr uint64_t SamplerStats::*kSummed[] = {
        &SamplerStats::ticks,          &SamplerStats::samples,           &SamplerStats::unchanged_samples,
        &SamplerStats::suspensions,    &SamplerStats::suspend_wait_ns_total, &SamplerStats::suspended_ns_total,
        &SamplerStats::tick_ns_total,  &SamplerStats::shadow_sample_ns_total, &SamplerStats::snapshot_ticks,
        &SamplerStats::snapshot_ns_total, &SamplerStats::above_hooks_samples, &SamplerStats::shadow_only_samples,
        &SamplerStats::walks_checked,  &SamplerStats::walks_agreed,      &SamplerStats::walk_frames_checked,
        &SamplerStats::walk_frames_agreed, &SamplerStats::threads_sampled_by_snapshot,
        &SamplerStats::samples_by_snapshot, &SamplerStats::late_ns_total};
    for (auto field : kSummed) this->*field += tick.*field;
    suspended_ns_max = std::max(suspended_ns_max, tick.suspended_ns_max);
    tick_ns_max = std::max(tick_ns_max, tick.tick_ns_max);
    late_ns_max = std::max(late_ns_max, tick.late_ns_max);
    for (size_t r = 0; r < kSampleDropCount; ++r) drops[r] += tick.drops[r];
    for (size_t r = 0; r < kStackEndCount; ++r) incomplete_stacks[r] += tick.incomplete_stacks[r];
    for (size_t r = 0; r < kWalkDifferenceCount; ++r) walk_differences[r] += tick.walk_differences[r];
  }
};

}  // namespace umbra
