// The report's "stats": what the session counted about itself. Built apart from the threads' trees, from the
// hooks' counters, the sampler's, the reconciliation's and the registries'; enum-indexed counts go into the report
// under their names (the report layer does not know the enums).
#include <algorithm>
#include <array>
#include <cstdlib>
#include <string>

#include "hooks/shadow_hooks.h"
#include "profiler/session.h"
#include "snapshot/native_capture.h"

namespace umbra {
namespace {

uint64_t mean(uint64_t total, uint64_t count) { return count ? total / count : 0; }

template <size_t N>
NamedCounts named_counts(const std::array<std::string_view, N>& names, const std::array<uint64_t, N>& counts) {
  NamedCounts out;
  for (size_t i = 0; i < N; ++i) out.push_back({std::string(names[i]), counts[i]});
  return out;
}

// The hooks' counters, summed over every thread that had a shadow stack.
void add_hook_stats(ReportStats& stats, const ShadowPool& pool) {
  uint64_t enters = 0, leaves = 0, tailcalls = 0, unwinds = 0;
  std::array<uint64_t, kDropReasonCount> drops{};
  ReportStats::Tree tree{.nodes = 0, .node_bytes = 0, .node_bytes_max_thread = 0,
                         .node_bytes_limit = pool.node_budget().limit(), .slow_enters = 0,
                         .child_searches = 0, .sibling_steps = 0, .indexed_searches = 0, .unread = {}};
  pool.for_each_claimed([&](const ThreadShadow& shadow) {
    *tree.nodes += shadow.node_count();
    *tree.node_bytes += shadow.node_bytes();
    tree.node_bytes_max_thread = std::max<uint64_t>(*tree.node_bytes_max_thread, shadow.node_bytes());
    *tree.slow_enters += shadow.slow_enters();
    *tree.child_searches += shadow.child_searches();
    *tree.sibling_steps += shadow.sibling_steps();
    *tree.indexed_searches += shadow.indexed_searches();
    enters += shadow.enters();
    leaves += shadow.leaves();
    tailcalls += shadow.tailcalls();
    unwinds += shadow.unwinds();
    for (size_t r = 0; r < kDropReasonCount; ++r) drops[r] += shadow.drops(static_cast<DropReason>(r));
  });
  drops[static_cast<size_t>(DropReason::kNoThreadState)] += hooks::unattributed_hooks();
  stats.enter_hooks = enters;
  stats.leave_hooks = leaves;
  stats.tailcall_hooks = tailcalls;
  stats.exception_unwinds = unwinds;
  // The JIT turns a method's tail call to itself into a loop (the calls never happen) unless
  // DOTNET_TailCallLoopOpt=0 is in the environment when the process starts (umbra run sets it).
  const char* loop_opt = std::getenv("DOTNET_TailCallLoopOpt");
  stats.recursive_tail_calls_counted = loop_opt != nullptr && std::string(loop_opt) == "0";
  stats.drops = named_counts(kDropReasonNames, drops);
  stats.tree = tree;
}

// `by_signal`: shadow mode whose samples are stacks taken by signal (signal_sampling.h).
ReportStats::Sampler sampler_stats(const SamplerStats& s, const Config& config, bool by_signal,
                                   uint64_t abandoned_captures, const CaptureHandlerCost& handler) {
  ReportStats::Sampler sampler;
  sampler.interval_ms = config.interval_ms;
  sampler.ticks = s.ticks;
  sampler.samples = s.samples;
  if (config.mode == Mode::kSampled || by_signal) sampler.unchanged_samples = s.unchanged_samples;
  if (by_signal && config.mode == Mode::kShadow) {
    sampler.above_hooks_samples = s.above_hooks_samples;
    sampler.shadow_only_samples = s.shadow_only_samples;
  }
  sampler.suspensions = s.suspensions;
  sampler.suspended_ns_mean = mean(s.suspended_ns_total, s.suspensions);
  sampler.suspended_ns_max = s.suspended_ns_max;
  sampler.suspend_wait_ns_mean = mean(s.suspend_wait_ns_total, s.snapshot_ticks);
  sampler.tick_ns_mean = mean(s.tick_ns_total, s.ticks);
  sampler.tick_ns_max = s.tick_ns_max;
  sampler.tick_late_ns_mean = mean(s.late_ns_total, s.ticks);
  sampler.tick_late_ns_max = s.late_ns_max;
  sampler.cpu_ns_per_tick = mean(s.cpu_ns_total, s.ticks);
  sampler.snapshot_ns_mean = mean(s.snapshot_ns_total, s.snapshot_ticks);
  if (config.mode == Mode::kShadow) sampler.shadow_sample_ns_mean = mean(s.shadow_sample_ns_total, s.ticks);
  sampler.native_tops = s.native_tops;
  sampler.abandoned_captures = abandoned_captures;
  if (handler.answers != 0) sampler.capture_cpu_ns_mean = mean(handler.cpu_ns, handler.answers);
  sampler.drops = named_counts(kSampleDropNames, s.drops);
  if (config.mode == Mode::kSampled) {
    sampler.walker = by_signal ? "signal" : "suspend";
    if (by_signal) {
      sampler.walks_checked = s.walks_checked;
      sampler.walks_agreed = s.walks_agreed;
      sampler.walk_frames_checked = s.walk_frames_checked;
      sampler.walk_frames_agreed = s.walk_frames_agreed;
      sampler.walk_differences = named_counts(kWalkDifferenceNames, s.walk_differences);
      sampler.threads_sampled_by_snapshot = s.threads_sampled_by_snapshot;
      sampler.samples_by_snapshot = s.samples_by_snapshot;
      NamedCounts incomplete;  // every reason but the stack's end reached
      for (size_t r = 1; r < kStackEndCount; ++r)
        incomplete.push_back({std::string(kStackEndNames[r]), s.incomplete_stacks[r]});
      sampler.incomplete_stacks = std::move(incomplete);
    }
  }
  return sampler;
}

ReportStats::Reconcile reconcile_stats(const ReconcileCounts& r) {
  ReportStats::Reconcile reconcile;
  reconcile.snapshots = r.snapshots;
  reconcile.frames_compared = r.frames_compared;
  reconcile.unexplained = r.unexplained;
  reconcile.skipped_exception_in_flight = r.skipped_exception_in_flight;
  reconcile.skipped_truncated = r.skipped_truncated;
  reconcile.splices_lost = r.splices_lost;
  reconcile.unseen_top_frames = r.unseen_top_frames;
  reconcile.repairs = named_counts(kReconcileRepairNames, r.repairs);
  reconcile.spliced = named_counts(kReconcileSpliceNames, r.spliced);
  reconcile.kept = named_counts(kReconcileKeptNames, r.kept);
  return reconcile;
}

}  // namespace

ReportStats Session::report_stats(const char* trigger, size_t threads_reported) {
  ReportStats stats;
  stats.report_trigger = trigger;
  // A signal's report is written while the program still runs: it covers the run up to then.
  stats.partial = std::string(trigger).rfind("signal", 0) == 0;
  const bool shadow = config_.mode == Mode::kShadow;
  if (shadow) {
    stats.hook_family = hook_family_name(config_.hooks);
    stats.call_timing = config_.exact_times ? "exact" : config_.coarse_times ? "coarse_1ms" : "coarse_1ms_when_busy";
    if (!config_.exact_times && !config_.noop_hooks) {
      stats.coarse_clock_ms = uint64_t(coarse_clock_.coarse_time().count() / 1000000);
      stats.exact_clock_ms = uint64_t(coarse_clock_.exact_time().count() / 1000000);
    }
    if (hook_selection_) {
      HookSelection::Counts focus = hook_selection_->counts();
      stats.hooks_for = config_.hooks_for;
      stats.methods_hooked = focus.hooked;
      stats.methods_not_hooked = focus.not_hooked;
      stats.inlining_refused = focus.inlining_refused;
      stats.precompiled_refused = focus.precompiled_refused;
      stats.precompiled = precompiled_name(config_.precompiled);
      stats.module_load_windows = ready_to_run_windows_ ? ready_to_run_windows_->windows() : 0;
      stats.module_loads_with_hooks = ready_to_run_windows_ ? ready_to_run_windows_->loads_with_hooks() : 0;
      stats.compiled_without_hooks = focus.compiled_without_hooks;
      stats.load_window_waits_abandoned = ready_to_run_windows_ ? ready_to_run_windows_->waits_abandoned() : 0;
    }
    add_hook_stats(stats, pool_);
  }
  stats.sampler = sampler_stats(sampler_->stats(), config_, sampler_->stacks_by_signal(), threads_.abandoned_captures(),
                                capture_handler_cost());
  if (shadow) stats.reconcile = reconcile_stats(sampler_->reconcile_counts());
  stats.threads_created = threads_.threads_created();
  stats.threads_destroyed = threads_.threads_destroyed();
  stats.threads_reported = threads_reported;
  stats.functions_named = names_.size();
  stats.functions_named_by_runtime = names_.named_by_runtime();
  stats.jit_compilations = names_.jit_compilations();
  return stats;
}

}  // namespace umbra
