// Bad configuration never harms the program: one clear line each, the program's output and exit code unchanged.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "e2e_env.h"
#include "process.h"
#include "report_query.h"

namespace umbra::testing {
namespace {

// Every variable umbra reads but UMBRA_OUTPUT (a path: see the unwritable-output tests) and UMBRA_HOOKS_FOR (most
// text is a pattern: see the focused tests).
const char* const kVariables[] = {"UMBRA_MODE",          "UMBRA_LAUNCHED_PID",  "UMBRA_LOG_LEVEL",
                                  "UMBRA_MIN_PERCENT",   "UMBRA_INTERVAL_MS",   "UMBRA_RECONCILE_MS",
                                  "UMBRA_VERIFY",        "UMBRA_MAX_DEPTH",     "UMBRA_HOOKS",
                                  "UMBRA_EXACT_TIMES",   "UMBRA_BENCH_NOOP_HOOKS", "UMBRA_ALLOW_INLINING",
                                  "UMBRA_FORMATS",       "UMBRA_PRECOMPILED",   "UMBRA_MAX_TREE_MB",
                                  "UMBRA_RUNTIME_FRAMES", "UMBRA_CHECK_MS",      "UMBRA_WALKER"};

struct BadValue {
  const char* kind;
  const char* value;
};

class BadEnvironment : public ::testing::TestWithParam<BadValue> {};

// Every variable at once set to the same kind of bad value: one line each, the program unharmed, and a profile
// taken with the defaults.
TEST_P(BadEnvironment, OneLineEachAndTheProgramRunsOn) {
  const BadValue& b = GetParam();
  std::string dir = scratch_dir(std::string("bad_env_") + b.kind);
  auto env = profiler_env(dir + "/r");
  for (const char* variable : kVariables) env[variable] = b.value;
  env["UMBRA_INTERVAL"] = "5";  // a misspelling of UMBRA_INTERVAL_MS
  ProcessResult r = run_process(app_command("ExitPaths", {"return"}), env);
  EXPECT_EQ(r.exit_code, 5);
  EXPECT_EQ(r.out, "ending by return\n");
  for (const char* variable : kVariables)
    EXPECT_EQ(occurrences(r.err, std::string(variable) + "='" + b.value + "'"), 1u) << variable << "\n" << r.err;
  EXPECT_EQ(occurrences(r.err, "UMBRA_INTERVAL is not a variable umbra reads"), 1u) << r.err;
  // Nothing else but the summary line at exit.
  EXPECT_EQ(occurrences(r.err, "\n"), std::size(kVariables) + 2) << r.err;
  EXPECT_EQ(occurrences(r.err, "umbra: shadow profile:"), 1u) << r.err;
  JsonValue report = load_report(dir + "/r.json");
  EXPECT_EQ(report.find("mode")->as_string(), "shadow");
  EXPECT_EQ(report.find("stats")->find("hook_family")->as_string(), "elt3");
  const JsonValue* main_thread = thread_with_root(report, "ExitPaths.Program.Main");
  ASSERT_NE(main_thread, nullptr);
  EXPECT_EQ(total_calls(roots_of(*main_thread), "ExitPaths.Program.Counted"), 42u);
  EXPECT_TRUE(std::filesystem::exists(dir + "/r.txt"));
}

INSTANTIATE_TEST_SUITE_P(Values, BadEnvironment,
                         ::testing::Values(BadValue{"empty", ""}, BadValue{"negative", "-5"},
                                           BadValue{"huge", "99999999999999999999999999"},
                                           BadValue{"non_numeric", "abc"}, BadValue{"unknown", "turbo"}),
                         [](const ::testing::TestParamInfo<BadValue>& info) { return info.param.kind; });

TEST(Configuration, UnwritableOutputFallsBackAndSaysWhere) {
  std::string tmp = scratch_dir("unwritable_output");
  auto env = profiler_env("/nonexistent-dir/sub/report");
  env["TMPDIR"] = tmp;
  ProcessResult r = run_process(app_command("ExitPaths", {"return"}), env);
  EXPECT_EQ(r.exit_code, 5);
  EXPECT_EQ(r.out, "ending by return\n");
  EXPECT_EQ(occurrences(r.err, "cannot write '/nonexistent-dir/sub/report.json'"), 1u) << r.err;
  EXPECT_EQ(occurrences(r.err, "cannot write '/nonexistent-dir/sub/report.txt'"), 1u) << r.err;
  bool found = false;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(tmp)) {
    if (entry.path().extension() == ".json") {
      found = true;
      EXPECT_NE(r.err.find(entry.path().string()), std::string::npos) << "message names the fallback: " << r.err;
      JsonValue report = load_report(entry.path().string());
      EXPECT_NE(thread_with_root(report, "ExitPaths.Program.Main"), nullptr);
    }
  }
  EXPECT_TRUE(found) << r.err;
}

TEST(Configuration, MinPercentFoldsTheTextReport) {
  std::string dir = scratch_dir("min_percent");
  auto env = profiler_env(dir + "/all");
  env["UMBRA_MIN_PERCENT"] = "0";
  run_process(app_command("ExitPaths", {"return"}), env);
  env = profiler_env(dir + "/folded");
  env["UMBRA_MIN_PERCENT"] = "50";
  run_process(app_command("ExitPaths", {"return"}), env);
  auto read = [](const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  std::string all = read(dir + "/all.txt"), folded = read(dir + "/folded.txt");
  EXPECT_NE(all.find("ExitPaths.Program.Counted"), std::string::npos);
  EXPECT_EQ(folded.find("ExitPaths.Program.Counted"), std::string::npos);
  EXPECT_NE(folded.find("more under 50.0% each"), std::string::npos);
}

// The runtime's native frames, sampled: folded in the collapsed stacks by default, every one kept with
// UMBRA_RUNTIME_FRAMES=keep; the JSON report has them all either way, and says which the other files show.
TEST(Configuration, RuntimeFramesAreFoldedUnlessKept) {
  std::string dir = scratch_dir("runtime_frames");
  for (const char* setting : {"fold", "keep"}) {
    SCOPED_TRACE(setting);
    auto env = profiler_env(dir + "/" + setting);
    env["UMBRA_MODE"] = "sampled";
    env["UMBRA_INTERVAL_MS"] = "1";
    env["UMBRA_FORMATS"] = "json,collapsed";
    if (std::string(setting) == "keep") env["UMBRA_RUNTIME_FRAMES"] = "keep";
    ProcessResult r = run_process(app_command("ExitPaths", {"return"}), env);
    EXPECT_EQ(r.exit_code, 5);
    EXPECT_EQ(r.err.find("UMBRA_"), std::string::npos) << r.err;
    std::string collapsed = read_file(dir + "/" + setting + ".collapsed");
    std::string json = read_file(dir + "/" + setting + ".json");
    bool folded = std::string(setting) == "fold";
    EXPECT_EQ(collapsed.find("[native start-up];") != std::string::npos, folded) << collapsed.substr(0, 2000);
    EXPECT_EQ(collapsed.find("libcoreclr.so+0x") != std::string::npos, !folded) << collapsed.substr(0, 2000);
    EXPECT_NE(json.find("\"libcoreclr.so+0x"), std::string::npos);
    EXPECT_NE(json.find(std::string("\"runtime_frames\":\"") + setting + "\""), std::string::npos);
  }
}

TEST(Configuration, FormatsChooseTheFiles) {
  std::string dir = scratch_dir("config_formats");
  auto env = profiler_env(dir + "/r");
  env["UMBRA_FORMATS"] = "text";
  ProcessResult r = run_process(app_command("ExitPaths", {"return"}), env);
  EXPECT_EQ(r.exit_code, 5);
  EXPECT_TRUE(std::filesystem::exists(dir + "/r.txt"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/r.json"));
}

TEST(Configuration, LauncherRejectsBadOptionsBeforeRunningAnything) {
  ProcessResult r = run_process({launcher_path(), "run", "--interval-ms", "zero", "--", "dotnet", "--version"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("--interval-ms 'zero'"), std::string::npos);
}

TEST(Configuration, LauncherReportsACommandThatCannotRun) {
  ProcessResult r = run_process({launcher_path(), "run", "--", "/nonexistent/program"});
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_NE(r.err.find("cannot run '/nonexistent/program'"), std::string::npos);
}

TEST(Configuration, InliningIsOffUnlessAllowed) {
  std::string dir = scratch_dir("inlining");
  const std::vector<std::string> caller = {"ExitPaths.Program.Main", "ExitPaths.Program.OptimizedCaller"};
  for (bool allow : {false, true}) {
    // Every method hooked: a focused run never lets a hooked method be inlined, whatever --allow-inlining says.
    std::vector<std::string> argv = {launcher_path(), "run", "--hooks-for", "all", "-o",
                                     dir + (allow ? "/allowed" : "/default")};
    if (allow) argv.push_back("--allow-inlining");
    argv.push_back("--");
    ProcessResult r = run_process(with_app(argv, "ExitPaths"));
    ASSERT_EQ(r.exit_code, 5) << r.err;
    JsonValue report = load_report(dir + (allow ? "/allowed.json" : "/default.json"));
    const JsonValue* main = thread_with_root(report, "ExitPaths.Program.Main");
    ASSERT_NE(main, nullptr);
    const JsonValue* optimized = find_path(*main, caller);
    ASSERT_NE(optimized, nullptr);
    // Every call in the source is counted by default; an inlined call leaves nothing to hook.
    EXPECT_EQ(total_calls(children_of(*optimized), "ExitPaths.Program.Inlinable"), allow ? 0u : 42u);
  }
}

// --exact-times: every call timed with the TSC, so the 5,000 spins of at least 20 us add up to at least 100 ms, and
// each of 20 nested layers, called once, has its own 50 us spin: a time the 1 ms coarse clock charges as 0 or 1 ms.
TEST(Configuration, ExactTimesTimeEveryCall) {
  std::string dir = scratch_dir("exact_times");
  ProcessResult r = run_process(
      with_app({launcher_path(), "run", "--exact-times", "--hooks", "elt2", "-o", dir + "/r", "--"}, "KnownCounts"));
  ASSERT_EQ(r.exit_code, 3) << r.err;
  JsonValue report = load_report(dir + "/r.json");
  EXPECT_EQ(report.find("stats")->find("call_timing")->as_string(), "exact");
  EXPECT_EQ(report.find("stats")->find("hook_family")->as_string(), "elt2");
  const JsonValue* main = thread_with_root(report, "KnownCounts.Program.Main");
  ASSERT_NE(main, nullptr);
  const JsonValue* spin =
      find_path(*main, {"KnownCounts.Program.Main", "KnownCounts.Program.RunTimed", "KnownCounts.Program.Spin"});
  ASSERT_NE(spin, nullptr);
  EXPECT_EQ(calls_of(*spin), 5000u);
  EXPECT_GE(spin->find("total_ns")->as_uint(), 100'000'000u);
  const JsonValue* layer =
      find_path(*main, {"KnownCounts.Program.Main", "KnownCounts.Program.RunTimed", "KnownCounts.Program.Layer"});
  ASSERT_NE(layer, nullptr);
  std::vector<const JsonValue*> layers = direct_chain(*layer, "KnownCounts.Program.Layer");
  ASSERT_EQ(layers.size(), 20u);
  int under_a_millisecond = 0;
  for (size_t d = 0; d < layers.size(); ++d) {
    EXPECT_EQ(calls_of(*layers[d]), 1u);
    uint64_t total = layers[d]->find("total_ns")->as_uint();
    uint64_t below = d + 1 < layers.size() ? layers[d + 1]->find("total_ns")->as_uint() : 0;
    ASSERT_GE(total, below) << "layer " << d;
    EXPECT_GE(total - below, 50'000u) << "layer " << d << "'s own time";
    under_a_millisecond += total - below < 1'000'000;
  }
  // A 50 us spin is preempted now and then on a busy machine, not most of the time.
  EXPECT_GE(under_a_millisecond, 10);
}

}  // namespace
}  // namespace umbra::testing
