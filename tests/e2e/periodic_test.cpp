// Periodic reports on the real runtime, in both modes: --every gives PREFIX.p<n>.* whose counts (samples, samples
// on a CPU and, in shadow mode, calls) add up, path by path on every thread, to the report of the whole run; a
// report asked for with `umbra dump PID` while the program runs holds exactly what the program had done by then,
// and the program's output and exit status are those of a run without umbra.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "e2e_env.h"
#include "process.h"
#include "report_query.h"
#include "util/large_stack.h"

namespace umbra::testing {
namespace {

// Counts by (thread, path of names, field): what a report holds, in a form reports can be added in.
using Counts = std::map<std::tuple<uint64_t, std::string, std::string>, uint64_t>;

Counts counts_of(const JsonValue& report) {
  Counts counts;
  for (const JsonValue& thread : threads_of(report)) {
    uint64_t tid = thread.find("os_tid")->as_uint();
    for_each_path(thread, [&](const std::vector<const JsonValue*>& path) {
      std::string key;
      for (const JsonValue* node : path) key += name_of(*node) + ";";
      const JsonValue& node = *path.back();
      for (const char* field : {"calls", "self_samples", "self_cpu_samples"}) {
        const JsonValue* value = node.find(field);
        if (value && !value->is_null() && value->as_uint()) counts[{tid, key, field}] += value->as_uint();
      }
    });
  }
  return counts;
}

uint64_t total(const Counts& counts, const std::string& field) {
  uint64_t sum = 0;
  for (const auto& [key, value] : counts)
    if (std::get<2>(key) == field) sum += value;
  return sum;
}

// The periodic reports' JSON under `prefix`, in order: p1, p2, ...
std::vector<JsonValue> periods_of(const std::string& prefix) {
  std::vector<JsonValue> periods;
  for (int n = 1; std::filesystem::exists(prefix + ".p" + std::to_string(n) + ".json"); ++n)
    run_on_large_stack([&] { periods.push_back(load_report(prefix + ".p" + std::to_string(n) + ".json")); });
  return periods;
}

class Periodic : public ::testing::TestWithParam<const char*> {
 protected:
  bool shadow() const { return std::string(GetParam()) == "shadow"; }
};

TEST_P(Periodic, PeriodsAddUpToTheWholeRun) {
  std::string dir = scratch_dir(std::string("periodic_") + GetParam());
  std::string prefix = dir + "/r";
  // A new thread every 200 ms, each ended before the next: periods hold threads that ended in earlier ones.
  ProcessResult run = run_process(with_app({launcher_path(), "run", "--mode", GetParam(), "--interval-ms", "2",
                                            "--every", "300ms", "-o", prefix, "--"},
                                           "Workloads", {"steady", "1500"}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "steady done\n");
  JsonValue whole;
  run_on_large_stack([&] { whole = load_report(prefix + ".json"); });
  std::vector<JsonValue> periods = periods_of(prefix);
  ASSERT_GE(periods.size(), 2u) << run.err;
  Counts summed;
  uint64_t previous_end = 0;
  for (size_t i = 0; i < periods.size(); ++i) {
    const JsonValue* period = periods[i].find("stats")->find("period");
    ASSERT_NE(period, nullptr);
    EXPECT_EQ(period->find("index")->as_uint(), i + 1);
    // Each period starts where the one before ended.
    if (i) EXPECT_EQ(period->find("start_unix_ns")->as_uint(), previous_end);
    previous_end = period->find("end_unix_ns")->as_uint();
    EXPECT_EQ(periods[i].find("duration_ns")->as_uint(), previous_end - period->find("start_unix_ns")->as_uint());
    run_on_large_stack([&] {
      for (const auto& [key, value] : counts_of(periods[i])) summed[key] += value;
    });
  }
  Counts expected;
  run_on_large_stack([&] { expected = counts_of(whole); });
  EXPECT_GT(total(expected, "self_samples"), 0u);
  EXPECT_EQ(total(summed, "self_samples"), total(expected, "self_samples"));
  EXPECT_EQ(total(summed, "self_cpu_samples"), total(expected, "self_cpu_samples"));
  if (shadow()) {
    EXPECT_GT(total(expected, "calls"), 0u);
    EXPECT_EQ(total(summed, "calls"), total(expected, "calls"));
  }
  // Path by path, thread by thread.
  size_t differing = 0;
  for (const auto& [key, value] : expected)
    if (summed[key] != value && differing++ < 5)
      ADD_FAILURE() << std::get<0>(key) << " " << std::get<1>(key) << " " << std::get<2>(key) << ": whole run "
                    << value << ", periods " << summed[key];
  for (const auto& [key, value] : summed)
    if (!expected.count(key) && differing++ < 5)
      ADD_FAILURE() << "only in the periods: " << std::get<1>(key) << " " << std::get<2>(key);
  EXPECT_EQ(differing, 0u);
  // The launcher lists them.
  EXPECT_NE(run.err.find(std::to_string(periods.size()) + " periodic reports: " + prefix + ".p1.* to " + prefix + ".p" +
                         std::to_string(periods.size()) + ".* (.json, .txt)"),
            std::string::npos)
      << run.err;
}

// The program's process id from DIR/phase1 (Workloads phases), once it is there.
long long wait_for_phase_one(const std::string& dir) {
  for (int i = 0; i < 6000; ++i) {
    std::string pid = read_file(dir + "/phase1");
    if (!pid.empty()) return std::stoll(pid);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return 0;
}

TEST_P(Periodic, ReportAskedForWhileTheProgramRuns) {
  std::string dir = scratch_dir(std::string("report_now_") + GetParam());
  std::string prefix = dir + "/r";
  ProcessResult dump;
  ProcessResult run = run_process(
      with_app({launcher_path(), "run", "--mode", GetParam(), "--interval-ms", "2", "-o", prefix, "--"}, "Workloads",
               {"phases", dir}),
      {}, 300, [&](pid_t) {
        long long pid = wait_for_phase_one(dir);
        if (pid == 0) return;
        dump = run_process({launcher_path(), "dump", std::to_string(pid)});
        std::ofstream(dir + "/go") << "go";
      });
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "phases done\n");
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  EXPECT_NE(dump.err.find("report p1 of pid "), std::string::npos) << dump.err;
  EXPECT_NE(dump.err.find(prefix + ".p1.json, " + prefix + ".p1.txt"), std::string::npos) << dump.err;
  std::vector<JsonValue> periods = periods_of(prefix);
  // The one asked for, and the rest of the run, written at its end.
  ASSERT_EQ(periods.size(), 2u);
  EXPECT_EQ(periods[0].find("stats")->find("report_trigger")->as_string(), "period_request");
  JsonValue whole;
  run_on_large_stack([&] { whole = load_report(prefix + ".json"); });
  if (shadow()) {
    const std::string phase = "Workloads.Program.Phase";
    EXPECT_EQ(calls_in_all_threads(periods[0], phase), 100u);
    EXPECT_EQ(calls_in_all_threads(periods[1], phase), 50u);
    EXPECT_EQ(calls_in_all_threads(whole, phase), 150u);
  }
  uint64_t samples = 0;
  for (const JsonValue& period : periods)
    for (const JsonValue& thread : threads_of(period)) samples += thread_samples_of(thread);
  uint64_t whole_samples = 0;
  for (const JsonValue& thread : threads_of(whole)) whole_samples += thread_samples_of(thread);
  EXPECT_GT(whole_samples, 0u);
  EXPECT_EQ(samples, whole_samples);
}

INSTANTIATE_TEST_SUITE_P(BothModes, Periodic, ::testing::Values("shadow", "sampled"),
                         [](const ::testing::TestParamInfo<const char*>& info) { return info.param; });

// What `umbra dump` says of processes it cannot ask, and a bad --every.
TEST(PeriodicErrors, DumpOfAProcessNotProfiled) {
  ProcessResult dump = run_process({launcher_path(), "dump", std::to_string(getpid())});
  EXPECT_EQ(dump.exit_code, 2);
  EXPECT_NE(dump.err.find("is not profiled by umbra: it has no "), std::string::npos) << dump.err;
  ProcessResult nobody = run_process({launcher_path(), "dump", "2147483646"});
  EXPECT_EQ(nobody.exit_code, 2);
  EXPECT_NE(nobody.err.find("no process has pid 2147483646"), std::string::npos) << nobody.err;
}

TEST(PeriodicErrors, BadEveryRunsTheProgramWithoutPeriods) {
  std::string dir = scratch_dir("periodic_bad_every");
  ProcessResult run = run_process(app_command("Workloads", {"steady", "100"}),
                                  [&] {
                                    auto env = profiler_env(dir + "/r");
                                    env["UMBRA_EVERY"] = "10 minutes";
                                    return env;
                                  }());
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "steady done\n");
  EXPECT_EQ(occurrences(run.err, "umbra: UMBRA_EVERY='10 minutes' is not a duration from 100ms to 24h (like 500ms, "
                                 "30s, 5m, 1h); no periodic reports"),
            1u)
      << run.err;
  EXPECT_TRUE(std::filesystem::exists(dir + "/r.json"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/r.p1.json"));
}

}  // namespace
}  // namespace umbra::testing
