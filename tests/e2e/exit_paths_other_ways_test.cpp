// Endings beyond the common ones: exit() from native code, SIGKILL, a program that handles SIGTERM itself, an
// abort() whose report cannot be written, a descendant that outlives the launched program, and sampled mode with
// every real-time signal taken (the last two through tests/native/umbra_taken_resources.c).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <map>

#include "e2e_env.h"
#include "process.h"
#include "report_query.h"

namespace umbra::testing {
namespace {

const JsonValue& stats_of(const JsonValue& report) { return *report.find("stats"); }

// ExitPaths ending in `mode` under umbra, its reports at <dir>/r.*; the program's exit status and output are
// what it would give without umbra.
ProcessResult run_ending(const std::string& dir, const char* mode, int exit_code, const std::string& out) {
  ProcessResult r = run_process(with_app({launcher_path(), "run", "-o", dir + "/r", "--"}, "ExitPaths", {mode}));
  EXPECT_EQ(r.exit_code, exit_code) << r.err;
  EXPECT_EQ(r.out, out);
  return r;
}

// Calls of ExitPaths.Program.<method> under the main thread of `report` (0 if it has none).
uint64_t calls_under_main(const JsonValue& report, const std::string& method) {
  const JsonValue* main = thread_with_root(report, "ExitPaths.Program.Main");
  return main ? total_calls(roots_of(*main), "ExitPaths.Program." + method) : 0;
}

// The report at `path`, which must have been written at `trigger` and cover the whole run.
JsonValue load_whole_report(const std::string& path, const char* trigger) {
  JsonValue report = load_report(path);
  EXPECT_EQ(stats_of(report).find("report_trigger")->as_string(), trigger);
  EXPECT_FALSE(stats_of(report).find("partial")->as_bool());
  return report;
}

TEST(ExitPathsOtherWays, ExitFromNativeCodeWritesTheReport) {
  std::string dir = scratch_dir("other_native_exit");
  ProcessResult r = run_ending(dir, "native-exit", 11, "ending by native-exit\n");
  JsonValue report = load_whole_report(dir + "/r.json", "exit");
  EXPECT_EQ(calls_under_main(report, "Counted"), 42u);
  EXPECT_EQ(calls_under_main(report, "ExitNatively"), 1u);
}

TEST(ExitPathsOtherWays, SigkillLeavesNoReportAndTheLauncherSaysSo) {
  std::string dir = scratch_dir("other_sigkill");
  ProcessResult r = run_ending(dir, "sigkill", 128 + 9, "ending by sigkill\n");
  EXPECT_FALSE(std::filesystem::exists(dir + "/r.json"));
  EXPECT_NE(r.err.find("umbra: the program was ended by signal 9 (Killed) before a report was written at " + dir +
                       "/r.*"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("SIGKILL"), std::string::npos) << r.err;
}

// The program's PosixSignalRegistration cancels SIGTERM and waits until its handler has run: it goes on, and its
// report comes from its normal return.
TEST(ExitPathsOtherWays, AProgramsOwnSigtermHandlerKeepsWorking) {
  std::string dir = scratch_dir("other_own_sigterm");
  ProcessResult r = run_ending(dir, "own-sigterm", 5, "ending by own-sigterm\nhandled SIGTERM itself\n");
  JsonValue report = load_whole_report(dir + "/r.json", "shutdown");
  EXPECT_EQ(calls_under_main(report, "AfterOwnHandler"), 42u);
}

// abort() while every report file's open() hangs: umbra's handler gives the report 5 s, then lets the runtime's
// handler end the process as it would have.
TEST(ExitPathsOtherWays, AbortWaitsAtMostFiveSecondsForTheReport) {
  std::string dir = scratch_dir("other_abort_hang");
  auto env = profiler_env(dir + "/r");
  env["LD_PRELOAD"] = UMBRA_TEST_TAKEN_RESOURCES_LIB;
  env["UMBRA_HANG_WRITES_DIR"] = dir;
  auto start = std::chrono::steady_clock::now();
  ProcessResult r = run_process(app_command("ExitPaths", {"native-abort"}), env, 60);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.exit_code, 134) << r.err;
  EXPECT_EQ(r.out, "ending by native-abort\n");
  EXPECT_NE(r.err.find("SIGABRT received: writing a partial report"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/r.json"));
  EXPECT_GE(seconds, 5.0);
  EXPECT_LT(seconds, 20.0);
}

// The launched program starts a descendant and returns; the descendant reads its stdin until that program is gone,
// then makes 42 known calls. It holds the test's output pipes, so run_process returns once it has ended.
TEST(ExitPathsOtherWays, ADescendantThatOutlivesTheProgramWritesItsReportWhenItExits) {
  std::string dir = scratch_dir("other_outlive");
  ProcessResult r = run_ending(dir, "outlive", 5,
                               "ending by outlive\nending by after-parent\ndescendant ran on after its parent: True\n");
  JsonValue parent = load_report(dir + "/r.json");
  std::vector<std::string> descendants;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (name != "r.json" && name.size() > 7 && name.compare(0, 2, "r.") == 0 &&
        name.compare(name.size() - 5, 5, ".json") == 0)
      descendants.push_back(entry.path().string());
  }
  ASSERT_EQ(descendants.size(), 1u) << r.err;
  JsonValue child = load_report(descendants[0]);
  EXPECT_NE(child.find("pid")->as_int(), parent.find("pid")->as_int());
  EXPECT_EQ(stats_of(child).find("report_trigger")->as_string(), "shutdown");
  EXPECT_EQ(calls_under_main(child, "AfterParentEnded"), 42u);
}

TEST(ExitPathsOtherWays, SampledModeWithNoFreeRealTimeSignalSaysSoAndSamplesOn) {
  // The walker by signal needs the signal: without one, sampled mode suspends the runtime at every tick instead.
  const std::map<std::string, std::string> line_by_walker = {
      {"suspend", "umbra: no free real-time signal: native frames above managed code are not captured\n"},
      {"signal", "umbra: no free real-time signal: sampled mode suspends the runtime at every tick, so samples land "
                 "only at its safe points, and native frames above managed code are not captured\n"}};
  for (const auto& [walker, line] : line_by_walker) {
    SCOPED_TRACE(walker);
    std::string dir = scratch_dir("other_no_rt_signal_" + walker);
    auto env = profiler_env(dir + "/r");
    env["UMBRA_MODE"] = "sampled";
    env["UMBRA_WALKER"] = walker;
    env["LD_PRELOAD"] = UMBRA_TEST_TAKEN_RESOURCES_LIB;
    env["UMBRA_TAKE_RT_SIGNALS"] = "1";
    ProcessResult r = run_process(app_command("ExitPaths", {"return"}), env);
    EXPECT_EQ(r.exit_code, 5) << r.err;
    EXPECT_EQ(r.out, "ending by return\n");
    EXPECT_EQ(occurrences(r.err, line), 1u) << r.err;
    JsonValue report = load_report(dir + "/r.json");
    EXPECT_EQ(report.find("mode")->as_string(), "sampled");
    const JsonValue* sampler = stats_of(report).find("sampler");
    EXPECT_GT(sampler->find("ticks")->as_uint(), 0u);
    EXPECT_EQ(sampler->find("walker")->as_string(), "suspend");
  }
}

}  // namespace
}  // namespace umbra::testing
