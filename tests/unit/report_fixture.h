// A small known report shared by the writer tests.
#pragma once

#include "report/report.h"
#include "report/report_stats.h"

namespace umbra::testing {

inline ReportNode node(std::string name, uint64_t calls, uint64_t total_ns, uint64_t self_ns,
                       std::vector<ReportNode> children = {}) {
  ReportNode n;
  n.name = std::move(name);
  n.module = "App.dll";
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
  r.stats.set("enter_hooks", uint64_t(15));
  JsonValue drops = JsonValue::object();
  drops.set("stack_overflow", uint64_t(2));
  drops.set("tree_full", uint64_t(0));
  r.stats.set("drops", std::move(drops));
  return r;
}

// Stats with every field set, each to a value of its own (no mode has them all: sampled mode has
// unchanged_samples, shadow mode the rest). Some named counts are 0, as most are in a real report.
inline ReportStats every_stat() {
  ReportStats s;
  s.report_trigger = "shutdown";
  s.partial = false;
  s.hook_family = "elt3";
  s.call_timing = "coarse_1ms";
  s.enter_hooks = 1;
  s.leave_hooks = 2;
  s.tailcall_hooks = 3;
  s.exception_unwinds = 4;
  s.recursive_tail_calls_counted = true;
  s.drops = NamedCounts{{"stack_overflow", 5}, {"tree_full", 0}};
  ReportStats::Sampler& p = s.sampler.emplace();
  p.interval_ms = 6;
  p.ticks = 7;
  p.samples = 8;
  p.unchanged_samples = 9;
  p.suspensions = 10;
  p.suspended_ns_mean = 11;
  p.suspended_ns_max = 12;
  p.suspend_wait_ns_mean = 13;
  p.tick_ns_mean = 14;
  p.tick_ns_max = 15;
  p.cpu_ns_per_tick = 16;
  p.snapshot_ns_mean = 17;
  p.shadow_sample_ns_mean = 18;
  p.native_tops = true;
  p.abandoned_captures = 19;
  p.drops = NamedCounts{{"suspend_failed", 0}, {"no_frames", 20}};
  ReportStats::Reconcile& r = s.reconcile.emplace();
  r.snapshots = 21;
  r.frames_compared = 22;
  r.unexplained = 23;
  r.skipped_exception_in_flight = 24;
  r.skipped_truncated = 25;
  r.splices_lost = 26;
  r.unseen_top_frames = 27;
  r.repairs = NamedCounts{{"missed_leave", 28}};
  r.spliced = NamedCounts{{"native_segment", 29}, {"uninstrumented", 0}};
  r.kept = NamedCounts{{"stale_middle_frame", 0}, {"invisible_frame", 30}};
  s.threads_created = 31;
  s.threads_destroyed = 32;
  s.threads_reported = 33;
  s.functions_named = 34;
  s.jit_compilations = 35;
  return s;
}

// A sampled report of one thread whose stack is a chain `depth` deep, one self sample on every level. Built without
// recursion; destroying it recurses once per level (run_on_large_stack).
inline Report deep_chain(int depth) {
  ReportNode chain;
  chain.name = "F";
  chain.self_samples = chain.samples = 1;
  for (int d = depth - 2; d >= 0; --d) {
    ReportNode parent;
    parent.name = "F";
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
