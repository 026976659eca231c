// A small known report shared by the writer tests.
#pragma once

#include "report/report.h"

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
