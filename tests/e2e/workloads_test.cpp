// Workloads that stress a profiler (async/await, a GC-heavy loop, 100,000-deep recursion, 1,000 live threads, hot
// call loops), profiled in both modes: the program's output and exit status are unchanged, and the report holds
// what is known.
#include <gtest/gtest.h>

#include <set>

#include "e2e_env.h"
#include "process.h"
#include "report_query.h"
#include "util/large_stack.h"

namespace umbra::testing {
namespace {

struct Profiled {
  ProcessResult result;
  JsonValue report;
};

Profiled profile(const std::string& mode, const std::vector<std::string>& workload) {
  std::string dir = scratch_dir("workloads_" + mode + "_" + workload[0]);
  std::vector<std::string> argv =
      with_app({launcher_path(), "run", "--mode", mode, "--interval-ms", "1", "-o", dir + "/r", "--"}, "Workloads");
  argv.insert(argv.end(), workload.begin(), workload.end());
  Profiled run;
  run.result = run_process(argv);
  EXPECT_EQ(run.result.exit_code, 0) << run.result.err;
  // Reports are as deep as the deepest stack: parse and query them on a large stack.
  run_on_large_stack([&] { run.report = load_report(dir + "/r.json"); });
  return run;
}

uint64_t samples_under(const JsonValue& report, const std::string& name) {
  uint64_t total = 0;
  for_each_node(report, [&](const JsonValue& node) {
    if (name_of(node) == name) total += samples_of(node);
  });
  return total;
}

uint64_t drop(const JsonValue& report, const char* reason) {
  return report.find("stats")->find("drops")->find(reason)->as_uint();
}

class Workloads : public ::testing::TestWithParam<const char*> {
 protected:
  bool shadow() const { return std::string(GetParam()) == "shadow"; }
};

TEST_P(Workloads, AsyncAwait) {
  Profiled run = profile(GetParam(), {"async"});
  EXPECT_EQ(run.result.out, "async leaves=200\n");
  if (!shadow()) {
    EXPECT_GT(samples_under(run.report, "Workloads.Program.RunAsync"), 0u);
    return;
  }
  EXPECT_EQ(calls_in_all_threads(run.report, "Workloads.Program.Leaf"), 200u);
  // Leaf is called from the compiler's state machine for Chain, on thread-pool threads.
  size_t threads_with_leaf = 0;
  for (const auto& thread : threads_of(run.report)) {
    bool seen = false;
    for_each_path(thread, [&](const std::vector<const JsonValue*>& path) {
      if (path.size() >= 2 && name_of(*path.back()) == "Workloads.Program.Leaf" &&
          name_of(*path[path.size() - 2]).find("<Chain>") != std::string::npos &&
          name_of(*path[path.size() - 2]).find("MoveNext") != std::string::npos)
        seen = true;
    });
    threads_with_leaf += seen;
  }
  EXPECT_GE(threads_with_leaf, 1u);
}

TEST_P(Workloads, GcHeavyAllocationLoop) {
  Profiled run = profile(GetParam(), {"gc"});
  unsigned gen0 = 0;
  ASSERT_EQ(std::sscanf(run.result.out.c_str(), "gc allocations=1000000 gen0=%u", &gen0), 1) << run.result.out;
  // gen0's budget follows the CPU's cache size: 18 collections on one machine, more on others.
  EXPECT_GE(gen0, 10u) << "the loop must really be GC-heavy";
  if (shadow()) EXPECT_EQ(calls_in_all_threads(run.report, "Workloads.Program.Allocate"), 1000000u);
  else EXPECT_GE(samples_under(run.report, "Workloads.Program.RunGc"), 10u);
}

TEST_P(Workloads, RecursionOneHundredThousandDeep) {
  Profiled run = profile(GetParam(), {"deep", "100000"});
  EXPECT_EQ(run.result.out, "deep reached=100000\n");
  run_on_large_stack([&] {
    if (!shadow()) {
      EXPECT_GT(samples_under(run.report, "Workloads.Program.Recurse"), 0u);
      return;
    }
    // The shadow stack holds 65,536 frames: the tree is cut there with a marker that counts the calls below.
    const JsonValue* marker = nullptr;
    std::vector<const JsonValue*> cut_path;
    for (const auto& thread : threads_of(run.report))
      for_each_path(thread, [&](const std::vector<const JsonValue*>& path) {
        if (name_of(*path.back()) == "[deeper calls not recorded: shadow stack full]") {
          marker = path.back();
          cut_path = path;
        }
      });
    ASSERT_NE(marker, nullptr);
    EXPECT_EQ(marker->find("kind")->as_string(), "marker");
    ASSERT_EQ(cut_path.size(), 65537u);
    uint64_t recorded_recursions = 0;
    for (const JsonValue* node : cut_path) recorded_recursions += name_of(*node) == "Workloads.Program.Recurse";
    EXPECT_GE(recorded_recursions, 65500u);
    // Recurse(100000) down to Recurse(0) is 100,001 calls, and the bottom makes a few calls of its own: every
    // call not recorded is counted, exactly, on the marker and in the drops.
    EXPECT_GE(calls_of(*marker), 100001u - recorded_recursions + 1);
    EXPECT_EQ(calls_of(*marker), drop(run.report, "stack_overflow"));
  });
}

// Two threads that spend most of their time inside the hooks' fast path (the same node entered and left again):
// every call is counted and the loop's registers survive, while the runtime's own suspensions land in the hooks.
TEST_P(Workloads, HotCallLoopsOnTwoThreads) {
  Profiled run = profile(GetParam(), {"hot", "20000000"});
  EXPECT_EQ(run.result.out, "hot sum=60000000\n");
  if (shadow()) EXPECT_EQ(calls_in_all_threads(run.report, "Workloads.Program.Tiny"), 40000000u);
  else EXPECT_GT(samples_under(run.report, "Workloads.Program.HotLoop"), 0u);
}

TEST_P(Workloads, OneThousandLiveThreads) {
  Profiled run = profile(GetParam(), {"threads", "1000"});
  EXPECT_EQ(run.result.out, "threads started=1000\n");
  EXPECT_GE(threads_of(run.report).size(), 1000u);
  if (!shadow()) return;
  EXPECT_EQ(calls_in_all_threads(run.report, "Workloads.Program.Work"), 10000u);
  size_t working = 0;
  for (const auto& thread : threads_of(run.report))
    working += total_calls(roots_of(thread), "Workloads.Program.Work") == 10;
  EXPECT_EQ(working, 1000u);
}

INSTANTIATE_TEST_SUITE_P(BothModes, Workloads, ::testing::Values("shadow", "sampled"),
                         [](const ::testing::TestParamInfo<const char*>& info) { return info.param; });

}  // namespace
}  // namespace umbra::testing
