// A small known report shared by the writer tests.
#pragma once

#include <string>
#include <string_view>

#include "report/report.h"
#include "report/report_stats.h"

namespace umbra::testing {

// A node's frame with one of its strings changed.
inline void set_name(ReportNode& n, std::string_view name) { n.frame = intern_frame(name, n.module(), n.kind()); }
inline void set_module(ReportNode& n, std::string_view module) { n.frame = intern_frame(n.name(), module, n.kind()); }
inline void set_kind(ReportNode& n, std::string_view kind) { n.frame = intern_frame(n.name(), n.module(), kind); }

inline ReportNode node(std::string name, uint64_t calls, uint64_t total_ns, uint64_t self_ns,
                       std::vector<ReportNode> children = {}) {
  ReportNode n;
  n.frame = intern_frame(name, "App.dll");
  n.calls = calls;
  n.total_ns = total_ns;
  n.self_ns = self_ns;
  n.children = std::move(children);
  return n;
}

inline Report known_report() {
  Report r;
  r.mode = "shadow";
  r.pid = 42;
  r.runtime = "10.0.0";
  r.duration_ns = 2'000'000'000;
  ReportThread main;
  main.os_tid = 42;
  main.managed_id = 7;
  main.name = "Main \"thread\"";
  main.roots.push_back(node("App.Program.Main", 1, 1'000'000'000, 100'000'000,
                            {node("App.Program.Hot", 10, 899'000'000, 899'000'000),
                             node("App.Program.Tiny", 3, 1'000'000, 1'000'000)}));
  r.threads.push_back(main);
  ReportThread worker;
  worker.os_tid = 43;
  worker.exited = true;
  worker.roots.push_back(node("App.Worker.Run", 1, 5'000'000, 5'000'000));
  r.threads.push_back(worker);
  r.stats.enter_hooks = 15;
  r.stats.drops = NamedCounts{{"stack_overflow", 2}, {"tree_full", 0}};
  return r;
}

// known_report() with what a report of umbra's own says of its process.
inline Report known_named_report() {
  Report r = known_report();
  r.program = "MSBuild.dll";
  r.command_line = {"/usr/share/dotnet/dotnet", "/sdk/MSBuild.dll", "-nodemode:1", "two words", "it's"};
  r.umbra_version = "0.1.0";
  return r;
}

// known_report() as sampled mode writes it: `main_self` samples in Main itself and `hot_self` in Hot below it.
inline Report known_sampled_report(uint64_t main_self, uint64_t hot_self) {
  Report r = known_report();
  r.mode = "sampled";
  r.threads[0].roots[0].self_samples = main_self;
  r.threads[0].roots[0].children[0].self_samples = hot_self;
  r.threads[0].roots[0].samples = main_self + hot_self;
  return r;
}

// Stats with every field set, each to a value of its own (no mode has them all: sampled mode has
// unchanged_samples, shadow mode the rest). Some named counts are 0, as most are in a real report.
inline ReportStats every_stat() {
  return ReportStats{
      .report_trigger = "shutdown", .partial = false, .hook_family = "elt3", .call_timing = "coarse_1ms",
      .hooks_for = "[App]*,!*.Tick", .methods_hooked = 44, .methods_not_hooked = 45, .inlining_refused = 46,
      .precompiled_refused = 47, .precompiled = "keep", .module_load_windows = 48, .module_loads_with_hooks = 49,
      .compiled_without_hooks = 50, .load_window_waits_abandoned = 51,
      .enter_hooks = 1, .leave_hooks = 2, .tailcall_hooks = 3, .exception_unwinds = 4,
      .recursive_tail_calls_counted = true, .drops = NamedCounts{{"stack_overflow", 5}, {"tree_full", 0}},
      .tree = ReportStats::Tree{.nodes = 36, .node_bytes = 37, .node_bytes_max_thread = 38, .node_bytes_limit = 43,
                                .slow_enters = 39, .child_searches = 40, .sibling_steps = 41, .indexed_searches = 42,
                                .unread = {}},
      .sampler = ReportStats::Sampler{
          .interval_ms = 6, .ticks = 7, .samples = 8, .unchanged_samples = 9, .above_hooks_samples = 52,
          .shadow_only_samples = 53, .suspensions = 10,
          .suspended_ns_mean = 11, .suspended_ns_max = 12, .suspend_wait_ns_mean = 13, .tick_ns_mean = 14,
          .tick_ns_max = 15, .cpu_ns_per_tick = 16, .snapshot_ns_mean = 17, .tick_late_ns_mean = 88,
          .tick_late_ns_max = 89, .shadow_sample_ns_mean = 18,
          .native_tops = true, .abandoned_captures = 19, .capture_cpu_ns_mean = 68,
          .drops = NamedCounts{{"suspend_failed", 0}, {"no_frames", 20}},
          .incomplete_stacks = NamedCounts{{"truncated", 0}, {"no_frame_record", 69}}, .walker = "signal",
          .walks_checked = 61,
          .walks_agreed = 62, .walk_frames_checked = 64, .walk_frames_agreed = 63,
          .walk_differences = NamedCounts{{"missing_leaf", 65}}, .threads_sampled_by_snapshot = 66,
          .samples_by_snapshot = 67, .unread = {}},
      .reconcile = ReportStats::Reconcile{
          .snapshots = 21, .frames_compared = 22, .unexplained = 23, .skipped_exception_in_flight = 24,
          .skipped_truncated = 25, .splices_lost = 26, .unseen_top_frames = 27,
          .repairs = NamedCounts{{"missed_leave", 28}},
          .spliced = NamedCounts{{"native_segment", 29}, {"uninstrumented", 0}},
          .kept = NamedCounts{{"stale_middle_frame", 0}, {"invisible_frame", 30}}, .unread = {}},
      .threads_created = 31, .threads_destroyed = 32, .threads_reported = 33, .functions_named = 34,
      .jit_compilations = 35, .functions_named_by_runtime = 90,
      .period = ReportStats::Period{.index = 54, .start_unix_ns = 55, .end_unix_ns = 56, .unread = {}},
      .push = ReportStats::Push{.pushed = 57, .failed = 58, .retries = 59, .dropped = 60, .abandoned = 61,
                                .first_failure = "Couldn't connect to server", .unread = {}},
      .unread = {}};
}

// A chain deeper than the writers' 1,024-frame bound, and the frame that stands for the levels cut off.
constexpr int kDeepChain = 8000;
inline const std::string kDeeperMarker = "[deeper frames not shown]";

// A sampled report of one thread whose stack is a chain `depth` deep, one self sample on every level. Built without
// recursion; destroying it recurses once per level (run_on_large_stack).
inline Report deep_chain(int depth) {
  ReportNode chain;
  chain.frame = intern_frame("F");
  chain.self_samples = chain.samples = 1;
  for (int d = depth - 2; d >= 0; --d) {
    ReportNode parent;
    parent.frame = intern_frame("F");
    parent.self_samples = 1;
    parent.samples = uint64_t(depth - d);
    parent.children.push_back(std::move(chain));
    chain = std::move(parent);
  }
  Report r;
  r.mode = "sampled";
  r.threads.emplace_back().roots.push_back(std::move(chain));
  return r;
}

}  // namespace umbra::testing
