// The report's "stats": what the profiler counted about itself. for_each_field names every field's JSON key, in the
// order the JSON has them; the writer and the reader both follow it, so each key is spelled once.
// Every field is optional: each mode writes only its own, and an older umbra's report lacks the keys added since.
// What is absent stays absent when `umbra report` writes the JSON again.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "report/json_value.h"

namespace umbra {

// Counts under names from the profiler's enums (drop reasons, repairs), in the enums' order: the report layer does
// not know the enums, and a reason added by a newer umbra is still shown and summed.
struct NamedCount {
  std::string name;
  uint64_t count = 0;
  bool operator==(const NamedCount&) const = default;
};
using NamedCounts = std::vector<NamedCount>;

struct ReportStats {
  struct Sampler {
    std::optional<uint64_t> interval_ms, ticks, samples;
    std::optional<uint64_t> unchanged_samples;  // sampled and focused shadow mode
    std::optional<uint64_t> above_hooks_samples, shadow_only_samples;  // focused shadow mode
    std::optional<uint64_t> suspensions, suspended_ns_mean, suspended_ns_max, suspend_wait_ns_mean;
    std::optional<uint64_t> tick_ns_mean, tick_ns_max, cpu_ns_per_tick, snapshot_ns_mean;
    std::optional<uint64_t> tick_late_ns_mean, tick_late_ns_max;  // ticks begun after their scheduled time
    std::optional<uint64_t> shadow_sample_ns_mean;  // shadow mode
    std::optional<bool> native_tops;                // a signal was free for native-top capture
    std::optional<uint64_t> abandoned_captures;
    // The CPU time the capture handler took on the sampled thread per answer (stacks taken by signal, and native
    // tops): what a sample costs the program beyond the signal's delivery.
    std::optional<uint64_t> capture_cpu_ns_mean;
    std::optional<NamedCounts> drops;  // by the sampler's drop reasons
    // Sampled mode, walker by signal: samples kept under "[stack incomplete]" (their stack stopped short of the
    // thread's start), by why the walk stopped.
    std::optional<NamedCounts> incomplete_stacks;
    // Sampled mode: how stacks were taken ("signal" or "suspend"), and the signal walks checked against
    // DoStackSnapshot's walks of the same moment: walks, managed frames, agreement, differing walks by reason.
    std::optional<std::string> walker;
    std::optional<uint64_t> walks_checked, walks_agreed, walk_frames_checked, walk_frames_agreed;
    std::optional<NamedCounts> walk_differences;
    // Threads whose stacks by signal differed check after check, sampled from snapshot walks since; their samples.
    std::optional<uint64_t> threads_sampled_by_snapshot, samples_by_snapshot;
    JsonValue::Object unread;          // see ReportStats::unread
    bool operator==(const Sampler&) const = default;

    template <typename Self, typename Visit>
    static void for_each_field(Self& s, Visit&& visit) {
      visit("interval_ms", s.interval_ms);
      visit("ticks", s.ticks);
      visit("samples", s.samples);
      visit("unchanged_samples", s.unchanged_samples);
      visit("above_hooks_samples", s.above_hooks_samples);
      visit("shadow_only_samples", s.shadow_only_samples);
      visit("suspensions", s.suspensions);
      visit("suspended_ns_mean", s.suspended_ns_mean);
      visit("suspended_ns_max", s.suspended_ns_max);
      visit("suspend_wait_ns_mean", s.suspend_wait_ns_mean);
      visit("tick_ns_mean", s.tick_ns_mean);
      visit("tick_ns_max", s.tick_ns_max);
      visit("cpu_ns_per_tick", s.cpu_ns_per_tick);
      visit("tick_late_ns_mean", s.tick_late_ns_mean);
      visit("tick_late_ns_max", s.tick_late_ns_max);
      visit("snapshot_ns_mean", s.snapshot_ns_mean);
      visit("shadow_sample_ns_mean", s.shadow_sample_ns_mean);
      visit("native_tops", s.native_tops);
      visit("abandoned_captures", s.abandoned_captures);
      visit("capture_cpu_ns_mean", s.capture_cpu_ns_mean);
      visit("drops", s.drops);
      visit("incomplete_stacks", s.incomplete_stacks);
      visit("walker", s.walker);
      visit("walks_checked", s.walks_checked);
      visit("walks_agreed", s.walks_agreed);
      visit("walk_frames_checked", s.walk_frames_checked);
      visit("walk_frames_agreed", s.walk_frames_agreed);
      visit("walk_differences", s.walk_differences);
      visit("threads_sampled_by_snapshot", s.threads_sampled_by_snapshot);
      visit("samples_by_snapshot", s.samples_by_snapshot);
    }
  };

  // Snapshots compared with the shadow stacks (README, "The hybrid").
  struct Reconcile {
    std::optional<uint64_t> snapshots, frames_compared, unexplained;
    std::optional<uint64_t> skipped_exception_in_flight, skipped_truncated, splices_lost, unseen_top_frames;
    std::optional<NamedCounts> repairs, spliced, kept;
    JsonValue::Object unread;  // see ReportStats::unread
    bool operator==(const Reconcile&) const = default;

    template <typename Self, typename Visit>
    static void for_each_field(Self& r, Visit&& visit) {
      visit("snapshots", r.snapshots);
      visit("frames_compared", r.frames_compared);
      visit("unexplained", r.unexplained);
      visit("skipped_exception_in_flight", r.skipped_exception_in_flight);
      visit("skipped_truncated", r.skipped_truncated);
      visit("splices_lost", r.splices_lost);
      visit("unseen_top_frames", r.unseen_top_frames);
      visit("repairs", r.repairs);
      visit("spliced", r.spliced);
      visit("kept", r.kept);
    }
  };

  // Shadow mode: the call trees' size and how their updates went (README, "What it costs").
  struct Tree {
    std::optional<uint64_t> nodes, node_bytes, node_bytes_max_thread, node_bytes_limit;
    std::optional<uint64_t> slow_enters, child_searches, sibling_steps, indexed_searches;
    JsonValue::Object unread;  // see ReportStats::unread
    bool operator==(const Tree&) const = default;

    template <typename Self, typename Visit>
    static void for_each_field(Self& t, Visit&& visit) {
      visit("nodes", t.nodes);
      visit("node_bytes", t.node_bytes);
      visit("node_bytes_max_thread", t.node_bytes_max_thread);
      visit("node_bytes_limit", t.node_bytes_limit);
      visit("slow_enters", t.slow_enters);
      visit("child_searches", t.child_searches);
      visit("sibling_steps", t.sibling_steps);
      visit("indexed_searches", t.indexed_searches);
    }
  };

  // A periodic report (--every, or asked for while the program ran): which one, and the period it holds, in Unix
  // time. The counts of the report are that period's; the stats are the run's up to its end.
  struct Period {
    std::optional<uint64_t> index, start_unix_ns, end_unix_ns;
    JsonValue::Object unread;  // see ReportStats::unread
    bool operator==(const Period&) const = default;

    template <typename Self, typename Visit>
    static void for_each_field(Self& p, Visit&& visit) {
      visit("index", p.index);
      visit("start_unix_ns", p.start_unix_ns);
      visit("end_unix_ns", p.end_unix_ns);
    }
  };

  // Periods pushed to Pyroscope (--push), up to when the report was written: sent and answered with success,
  // given up after every attempt, attempts made again, left out when the queue was full, and still unsent when the
  // wait at the end ran out.
  struct Push {
    std::optional<uint64_t> pushed, failed, retries, dropped, abandoned;
    std::optional<std::string> first_failure;  // why the first one failed
    JsonValue::Object unread;  // see ReportStats::unread
    bool operator==(const Push&) const = default;

    template <typename Self, typename Visit>
    static void for_each_field(Self& p, Visit&& visit) {
      visit("pushed", p.pushed);
      visit("failed", p.failed);
      visit("retries", p.retries);
      visit("dropped", p.dropped);
      visit("abandoned", p.abandoned);
      visit("first_failure", p.first_failure);
    }
  };

  std::optional<std::string> report_trigger;
  std::optional<bool> partial;  // written by a signal while the program still ran
  // Shadow mode only, down to drops.
  std::optional<std::string> hook_family, call_timing;
  // The default timing: how long the hooks read the 1 ms clock (calls were frequent) and the TSC (they were rare).
  std::optional<uint64_t> coarse_clock_ms, exact_clock_ms;
  // Focused shadow mode: the patterns, and how many methods the runtime asked about got hooks.
  std::optional<std::string> hooks_for;
  std::optional<uint64_t> methods_hooked, methods_not_hooked, inlining_refused, precompiled_refused;
  std::optional<std::string> precompiled;  // "keep" or "jit"
  std::optional<uint64_t> module_load_windows, module_loads_with_hooks, compiled_without_hooks;
  // Compilations of hooked methods that stopped waiting for a module load's window to close (ready_to_run_windows.h).
  std::optional<uint64_t> load_window_waits_abandoned;
  std::optional<uint64_t> enter_hooks, leave_hooks, tailcall_hooks, exception_unwinds;
  std::optional<bool> recursive_tail_calls_counted;
  std::optional<NamedCounts> drops;  // by the hooks' drop reasons
  std::optional<Tree> tree;
  std::optional<Sampler> sampler;
  std::optional<Reconcile> reconcile;  // shadow mode
  std::optional<uint64_t> threads_created, threads_destroyed, threads_reported, functions_named, jit_compilations;
  // Of functions_named, those the runtime named (a module without a file umbra reads; see names/assembly_metadata.h).
  std::optional<uint64_t> functions_named_by_runtime;
  std::optional<Period> period;
  std::optional<Push> push;
  // Keys this umbra does not read (from a newer one), or whose value it cannot: kept as they were and written after
  // the others, so such a report loads and is written again whole.
  JsonValue::Object unread;
  bool operator==(const ReportStats&) const = default;

  template <typename Self, typename Visit>
  static void for_each_field(Self& s, Visit&& visit) {
    visit("report_trigger", s.report_trigger);
    visit("partial", s.partial);
    visit("hook_family", s.hook_family);
    visit("call_timing", s.call_timing);
    visit("coarse_clock_ms", s.coarse_clock_ms);
    visit("exact_clock_ms", s.exact_clock_ms);
    visit("hooks_for", s.hooks_for);
    visit("methods_hooked", s.methods_hooked);
    visit("methods_not_hooked", s.methods_not_hooked);
    visit("inlining_refused", s.inlining_refused);
    visit("precompiled_refused", s.precompiled_refused);
    visit("precompiled", s.precompiled);
    visit("module_load_windows", s.module_load_windows);
    visit("module_loads_with_hooks", s.module_loads_with_hooks);
    visit("compiled_without_hooks", s.compiled_without_hooks);
    visit("load_window_waits_abandoned", s.load_window_waits_abandoned);
    visit("enter_hooks", s.enter_hooks);
    visit("leave_hooks", s.leave_hooks);
    visit("tailcall_hooks", s.tailcall_hooks);
    visit("exception_unwinds", s.exception_unwinds);
    visit("recursive_tail_calls_counted", s.recursive_tail_calls_counted);
    visit("drops", s.drops);
    visit("tree", s.tree);
    visit("sampler", s.sampler);
    visit("reconcile", s.reconcile);
    visit("threads_created", s.threads_created);
    visit("threads_destroyed", s.threads_destroyed);
    visit("threads_reported", s.threads_reported);
    visit("functions_named", s.functions_named);
    visit("functions_named_by_runtime", s.functions_named_by_runtime);
    visit("jit_compilations", s.jit_compilations);
    visit("period", s.period);
    visit("push", s.push);
  }
};

}  // namespace umbra
