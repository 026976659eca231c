// Focused shadow mode on the real runtime (--hooks-for): exact counts for the methods the patterns choose and none
// for the others, hooked methods kept from inlining while the rest inlines, and a bad pattern's one line.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>

#include "e2e_env.h"
#include "process.h"
#include "report_query.h"

namespace umbra::testing {
namespace {

const std::string KC = "KnownCounts.Program.";
const std::string EP = "ExitPaths.Program.";
const char* const kPatterns =
    "[KnownCounts]*.Program.Main, *.Program.Leaf, *.Program.Fib, *.Program.Work, *.Program.RunLoop, *.Program.Pause, "
    "!*.Program.Run?ecursion";

// Six methods hooked, one of them on four threads; a snapshot at every tick checks the shadow stacks, whose frames
// without hooks are expected between the hooked ones: RunTimed, between Main and the 200 ms of Pause, is spliced in.
TEST(Focused, ExactCountsWhereThePatternsPointAndNoneElsewhere) {
  std::string dir = scratch_dir("focused_known_counts");
  ProcessResult r = run_process(
      with_app({launcher_path(), "run", "--verify", "--hooks-for", kPatterns, "-o", dir + "/r", "--"}, "KnownCounts"));
  ASSERT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(r.out, "fib=6765 caught=100 sink=5303 abi=50\n");
  JsonValue report = load_report(dir + "/r.json");
  const JsonValue& stats = *report.find("stats");
  EXPECT_EQ(stats.find("hooks_for")->as_string(), kPatterns);
  EXPECT_EQ(stats.find("methods_hooked")->as_uint(), 6u);
  EXPECT_GT(stats.find("methods_not_hooked")->as_uint(), 100u);
  // Some 25,000 hooked calls in a run with 200 ms of sleep: the hooks read the TSC for most of it, and the clock's
  // thread stops publishing.
  EXPECT_GT(stats.find("exact_clock_ms")->as_uint(), stats.find("coarse_clock_ms")->as_uint());

  EXPECT_EQ(calls_in_all_threads(report, KC + "Leaf"), 1000u);
  EXPECT_EQ(calls_in_all_threads(report, KC + "Fib"), 21891u);  // Fib(20)
  EXPECT_EQ(calls_in_all_threads(report, KC + "Work"), 1000u);  // 100 + 200 + 300 + 400 on the workers
  EXPECT_EQ(calls_in_all_threads(report, KC + "RunLoop"), 1u);
  EXPECT_EQ(calls_in_all_threads(report, KC + "Pause"), 4u);
  for (const char* unhooked : {"RunTimed", "RunRecursion", "WorkerBody", "RunGenerics", "ShortLivedBody"})
    EXPECT_EQ(calls_in_all_threads(report, KC + unhooked), 0u) << unhooked;
  uint64_t leaf_under_run_loop = 0;
  for (const JsonValue& thread : threads_of(report))
    for_each_path(thread, [&](const std::vector<const JsonValue*>& path) {
      size_t n = path.size();
      if (n >= 2 && name_of(*path[n - 1]) == KC + "Leaf" && name_of(*path[n - 2]) == KC + "RunLoop")
        leaf_under_run_loop += calls_of(*path[n - 1]);
    });
  EXPECT_EQ(leaf_under_run_loop, 1000u);
  const JsonValue* main = thread_with_root(report, KC + "Main");
  ASSERT_NE(main, nullptr);
  EXPECT_EQ(calls_of(roots_of(*main)[0]), 1u);
  const JsonValue* pause = find_path(*main, {KC + "Main", KC + "RunTimed", KC + "Pause"});
  ASSERT_NE(pause, nullptr) << read_file(dir + "/r.txt");
  EXPECT_EQ(calls_of(*pause), 4u);

  // Nothing lost, nothing unexplained: unwinds of frames without hooks are expected.
  // Threads with no managed frame (the runtime's own) are counted as no_frames, and a thread that is not scheduled
  // in time to answer the sampler's signal as native_top_timeout: neither is a loss of the hooks.
  for (const auto& [reason, count] : stats.find("drops")->as_object())
    if (reason != "no_frames" && reason != "native_top_timeout") EXPECT_EQ(count.as_uint(), 0u) << reason;
  const JsonValue& reconcile = *stats.find("reconcile");
  EXPECT_GT(reconcile.find("snapshots")->as_uint(), 10u);
  EXPECT_EQ(reconcile.find("unexplained")->as_uint(), 0u) << r.err;
  EXPECT_GT(reconcile.find("spliced")->find("uninstrumented")->as_uint(), 0u);
  EXPECT_NE(read_file(dir + "/r.txt").find(std::string("hooks for ") + kPatterns + ": 6 methods hooked"),
            std::string::npos);
}

// The runtime's own list of the methods its JIT compiled (DOTNET_JitStdOutFile): OptimizedCaller is compiled fully
// optimized at once, and calls Inlinable 42 times. Hooked, Inlinable is never inlined and every call is counted;
// without hooks it is inlined, so the JIT never compiles it on its own (with every method hooked, it does).
TEST(Focused, HookedMethodsAreNeverInlinedAndTheOthersAre) {
  std::string dir = scratch_dir("focused_inlining");
  struct Case {
    const char *name, *patterns;
    bool inlined;
  } cases[] = {{"hooked", "*.Program.Main, *.Program.OptimizedCaller, *.Program.Inlinable", false},
               {"unhooked", "*.Program.Main, *.Program.OptimizedCaller", true},
               {"every", nullptr, false}};
  for (const Case& c : cases) {
    std::string prefix = dir + "/" + c.name, jit_list = prefix + ".jit.txt";
    std::vector<std::string> argv = {launcher_path(), "run", "-o", prefix};
    if (c.patterns) argv.insert(argv.end(), {"--hooks-for", c.patterns});
    argv.push_back("--");
    ProcessResult r = run_process(with_app(argv, "ExitPaths", {"return"}),
                                  {{"DOTNET_JitDisasmSummary", "1"}, {"DOTNET_JitStdOutFile", jit_list}});
    ASSERT_EQ(r.exit_code, 5) << r.err;
    std::string compiled = read_file(jit_list);
    ASSERT_NE(compiled.find("ExitPaths.Program:OptimizedCaller()"), std::string::npos) << c.name << "\n" << compiled;
    EXPECT_EQ(compiled.find("ExitPaths.Program:Inlinable(int)") == std::string::npos, c.inlined) << c.name;
    JsonValue report = load_report(prefix + ".json");
    if (c.inlined) continue;
    const JsonValue* main = thread_with_root(report, EP + "Main");
    ASSERT_NE(main, nullptr) << c.name;
    const JsonValue* caller = find_path(*main, {EP + "Main", EP + "OptimizedCaller"});
    ASSERT_NE(caller, nullptr) << c.name;
    EXPECT_EQ(total_calls(children_of(*caller), EP + "Inlinable"), 42u) << c.name;
    if (c.patterns) EXPECT_GE(report.find("stats")->find("inlining_refused")->as_uint(), 1u);
  }
}

size_t lines_of(const std::string& text) {
  size_t n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

// By default the methods without hooks run from the runtime's precompiled (ReadyToRun) code: the runtime's list of
// what its JIT compiled holds the program's own methods and few others. A hooked framework method refuses its
// precompiled code and is compiled with hooks; --precompiled jit compiles everything, as without --hooks-for.
// Tiered compilation is off: the runtime closes the JIT's output file before the profiler's Shutdown, and a tier-up
// compiled in the background while the report is written then writes to the closed file and ends the process
// (seen on .NET 8; never without DOTNET_JitStdOutFile).
TEST(Focused, PrecompiledCodeIsKeptForMethodsWithoutHooks) {
  std::string dir = scratch_dir("focused_precompiled");
  const std::string write_line = "System.Console.WriteLine";
  struct Case {
    const char *name, *patterns, *precompiled;
    bool write_line_compiled;
  } cases[] = {{"keep", "[KnownCounts]", "keep", false},
               {"hooked", "[KnownCounts], [System.Console]System.Console.WriteLine", "keep", true},
               {"jit", "[KnownCounts]", "jit", true}};
  std::map<std::string, size_t> compiled_count;
  for (const Case& c : cases) {
    std::string prefix = dir + "/" + c.name, jit_list = prefix + ".jit.txt";
    ProcessResult r = run_process(
        with_app({launcher_path(), "run", "--hooks-for", c.patterns, "--precompiled", c.precompiled, "-o", prefix, "--"},
                 "KnownCounts"),
        {{"DOTNET_JitDisasmSummary", "1"}, {"DOTNET_JitStdOutFile", jit_list}, {"DOTNET_TieredCompilation", "0"}});
    ASSERT_EQ(r.exit_code, 3) << r.err;
    std::string compiled = read_file(jit_list);
    compiled_count[c.name] = lines_of(compiled);
    EXPECT_EQ(compiled.find("System.Console:WriteLine(System.String)") != std::string::npos, c.write_line_compiled)
        << c.name;
    JsonValue report = load_report(prefix + ".json");
    const JsonValue& stats = *report.find("stats");
    EXPECT_EQ(stats.find("precompiled")->as_string(), c.precompiled);
    EXPECT_EQ(stats.find("compiled_without_hooks")->as_uint(), 0u) << c.name;
    EXPECT_EQ(stats.find("module_load_windows")->as_uint() > 0, std::string(c.precompiled) == "keep") << c.name;
    EXPECT_EQ(stats.find("precompiled_refused")->as_uint() > 0, std::string(c.name) == "hooked") << c.name;
    EXPECT_EQ(calls_in_all_threads(report, KC + "Leaf"), 1000u) << c.name;
    EXPECT_EQ(calls_in_all_threads(report, write_line), std::string(c.name) == "hooked" ? 1u : 0u) << c.name;
  }
  EXPECT_LT(compiled_count["keep"] * 4, compiled_count["jit"]);
}

// Stacks taken at the sampler's signal give methods without hooks their samples: SplitA and SplitB, called in turn
// by the one hooked method, get the share of the samples the program measured for them (40% and 60%), with no
// call count; a thread that never runs a hooked method is sampled too.
TEST(Focused, MethodsWithoutHooksGetTheirSamplesAboveTheHookedOnes) {
  const std::string W = "Workloads.Program.";
  std::string dir = scratch_dir("focused_split");
  ProcessResult r = run_process(with_app({launcher_path(), "run", "--hooks-for", "[Workloads]*.RunSplit", "-o",
                                          dir + "/r", "--"},
                                         "Workloads", {"split", "3000"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  unsigned a_permille = 0, b_permille = 0;
  ASSERT_EQ(std::sscanf(r.out.c_str(), "split a_permille=%u b_permille=%u", &a_permille, &b_permille), 2) << r.out;
  JsonValue report = load_report(dir + "/r.json");
  EXPECT_EQ(calls_in_all_threads(report, W + "RunSplit"), 1u);
  uint64_t in_a = 0, in_b = 0, in_run_split = 0;
  for (const JsonValue& thread : threads_of(report))
    for_each_path(thread, [&](const std::vector<const JsonValue*>& path) {
      size_t n = path.size();
      if (name_of(*path[n - 1]) == W + "RunSplit") in_run_split += samples_of(*path[n - 1]);
      if (n < 2 || name_of(*path[n - 2]) != W + "RunSplit") return;
      std::string name = name_of(*path[n - 1]);
      if (name == W + "SplitA" || name == W + "SplitB") EXPECT_EQ(calls_of(*path[n - 1]), 0u) << name;
      if (name == W + "SplitA") in_a += samples_of(*path[n - 1]);
      if (name == W + "SplitB") in_b += samples_of(*path[n - 1]);
    });
  const JsonValue& sampler = *report.find("stats")->find("sampler");
  ASSERT_GT(in_a + in_b, 60u) << read_file(dir + "/r.txt") << "samples " << sampler.find("samples")->as_uint()
                                << ", counted on the shadow node alone "
                                << sampler.find("shadow_only_samples")->as_uint();
  // Most of RunSplit's samples are in the two methods (it also starts a thread and prints), split as the program
  // measured.
  EXPECT_GT(in_a + in_b, in_run_split * 6 / 10) << read_file(dir + "/r.txt");
  double a_share = 1000.0 * double(in_a) / double(in_a + in_b);
  EXPECT_NEAR(a_share, double(a_permille), 120.0) << in_a << " in SplitA, " << in_b << " in SplitB";

  const JsonValue* spinner = thread_named(report, "Unhooked");
  ASSERT_NE(spinner, nullptr) << read_file(dir + "/r.txt");
  uint64_t spinning = outermost_samples(*spinner, [&](const std::string& name) { return name == W + "UnhookedSpin"; });
  EXPECT_GT(spinning, 50u) << read_file(dir + "/r.txt");
  EXPECT_GE(sampler.find("above_hooks_samples")->as_uint(), in_a + in_b);
}

// A list that is not one of patterns: one line naming the bad item, and the program's own code hooked as without the
// option.
TEST(Focused, ABadPatternGetsOneLineAndTheProgramsOwnCodeIsHooked) {
  std::string dir = scratch_dir("focused_bad_pattern");
  auto env = profiler_env(dir + "/r");
  env["UMBRA_HOOKS_FOR"] = "[ExitPaths]*.Counted, [Exit";
  ProcessResult r = run_process(app_command("ExitPaths", {"return"}), env);
  EXPECT_EQ(r.exit_code, 5);
  EXPECT_EQ(r.out, "ending by return\n");
  EXPECT_EQ(occurrences(r.err, "UMBRA_HOOKS_FOR='[ExitPaths]*.Counted, [Exit' is not a list of method patterns"), 1u)
      << r.err;
  EXPECT_EQ(occurrences(r.err, "'[Exit' is not a pattern; hooking the program's own code (@app)"), 1u) << r.err;
  EXPECT_EQ(occurrences(r.err, "\n"), 2u) << r.err;  // that line and the summary
  JsonValue report = load_report(dir + "/r.json");
  EXPECT_EQ(report.find("stats")->find("hooks_for")->as_string(), "@app");
  const JsonValue* main = thread_with_root(report, EP + "Main");
  ASSERT_NE(main, nullptr);
  EXPECT_EQ(calls_of(roots_of(*main)[0]), 1u);
  EXPECT_EQ(total_calls(roots_of(*main), EP + "Counted"), 42u);
}

}  // namespace
}  // namespace umbra::testing
