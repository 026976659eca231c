// The report's "stats": what the session counted about itself. Built apart from the threads' trees, from the
// hooks' counters, the sampler's, the reconciliation's and the registries'.
#include <array>
#include <cstdlib>
#include <string>

#include "hooks/shadow_hooks.h"
#include "profiler/session.h"

namespace umbra {
namespace {

uint64_t mean(uint64_t total, uint64_t count) { return count ? total / count : 0; }

template <typename Names, typename Counts>
JsonValue named_counts(const Names& names, const Counts& counts) {
  JsonValue o = JsonValue::object();
  for (size_t i = 0; i < names.size(); ++i) o.set(std::string(names[i]), counts[i]);
  return o;
}

// The hooks' counters, summed over every thread that had a shadow stack.
void add_hook_stats(JsonValue& stats, const ShadowPool& pool) {
  uint64_t enters = 0, leaves = 0, tailcalls = 0, unwinds = 0;
  std::array<uint64_t, kDropReasonCount> drops{};
  pool.for_each_claimed([&](const ThreadShadow& shadow) {
    enters += shadow.enters();
    leaves += shadow.leaves();
    tailcalls += shadow.tailcalls();
    unwinds += shadow.unwinds();
    for (size_t r = 0; r < kDropReasonCount; ++r) drops[r] += shadow.drops(static_cast<DropReason>(r));
  });
  drops[static_cast<size_t>(DropReason::kNoThreadState)] += hooks::unattributed_hooks();
  stats.set("enter_hooks", enters);
  stats.set("leave_hooks", leaves);
  stats.set("tailcall_hooks", tailcalls);
  stats.set("exception_unwinds", unwinds);
  // The JIT turns a method's tail call to itself into a loop (the calls never happen) unless
  // DOTNET_TailCallLoopOpt=0 is in the environment when the process starts (umbra run sets it).
  const char* loop_opt = std::getenv("DOTNET_TailCallLoopOpt");
  stats.set("recursive_tail_calls_counted", loop_opt != nullptr && std::string(loop_opt) == "0");
  stats.set("drops", named_counts(kDropReasonNames, drops));
}

JsonValue sampler_stats(const SamplerStats& s, const Config& config, uint64_t abandoned_captures) {
  JsonValue sampler = JsonValue::object();
  sampler.set("interval_ms", uint64_t(config.interval_ms));
  sampler.set("ticks", s.ticks);
  sampler.set("samples", s.samples);
  if (config.mode == Mode::kSampled) sampler.set("unchanged_samples", s.unchanged_samples);
  sampler.set("suspensions", s.suspensions);
  sampler.set("suspended_ns_mean", mean(s.suspended_ns_total, s.suspensions));
  sampler.set("suspended_ns_max", s.suspended_ns_max);
  sampler.set("suspend_wait_ns_mean", mean(s.suspend_wait_ns_total, s.snapshot_ticks));
  sampler.set("tick_ns_mean", mean(s.tick_ns_total, s.ticks));
  sampler.set("tick_ns_max", s.tick_ns_max);
  sampler.set("cpu_ns_per_tick", mean(s.cpu_ns_total, s.ticks));
  sampler.set("snapshot_ns_mean", mean(s.snapshot_ns_total, s.snapshot_ticks));
  if (config.mode == Mode::kShadow) sampler.set("shadow_sample_ns_mean", mean(s.shadow_sample_ns_total, s.ticks));
  sampler.set("native_tops", s.native_tops);
  sampler.set("abandoned_captures", abandoned_captures);
  sampler.set("drops", named_counts(kSampleDropNames, s.drops));
  return sampler;
}

JsonValue reconcile_stats(const ReconcileCounts& r) {
  JsonValue reconcile = JsonValue::object();
  reconcile.set("snapshots", r.snapshots);
  reconcile.set("frames_compared", r.frames_compared);
  reconcile.set("unexplained", r.unexplained);
  reconcile.set("skipped_exception_in_flight", r.skipped_exception_in_flight);
  reconcile.set("skipped_truncated", r.skipped_truncated);
  reconcile.set("splices_lost", r.splices_lost);
  reconcile.set("unseen_top_frames", r.unseen_top_frames);
  reconcile.set("repairs", named_counts(kReconcileRepairNames, r.repairs));
  reconcile.set("spliced", named_counts(kReconcileSpliceNames, r.spliced));
  reconcile.set("kept", named_counts(kReconcileKeptNames, r.kept));
  return reconcile;
}

}  // namespace

JsonValue Session::report_stats(const char* trigger, size_t threads_reported) {
  JsonValue stats = JsonValue::object();
  stats.set("report_trigger", trigger);
  // A signal's report is written while the program still runs: it covers the run up to then.
  stats.set("partial", std::string(trigger).rfind("signal", 0) == 0);
  const bool shadow = config_.mode == Mode::kShadow;
  if (shadow) {
    stats.set("hook_family", hook_family_name(config_.hooks));
    stats.set("call_timing", config_.exact_times ? "exact" : "coarse_1ms");
    add_hook_stats(stats, pool_);
  }
  stats.set("sampler", sampler_stats(sampler_->stats(), config_, threads_.abandoned_captures()));
  if (shadow) stats.set("reconcile", reconcile_stats(sampler_->reconcile_counts()));
  stats.set("threads_created", threads_.threads_created());
  stats.set("threads_destroyed", threads_.threads_destroyed());
  stats.set("threads_reported", uint64_t(threads_reported));
  stats.set("functions_named", uint64_t(names_.size()));
  stats.set("jit_compilations", names_.jit_compilations());
  return stats;
}

}  // namespace umbra
