// Shadow mode on the real runtime: the KnownCounts program's exact call counts, paths and threads, with every method
// hooked (--hooks-for all) and with the default (the program's own code, @app).
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "e2e_env.h"
#include "process.h"
#include "report_query.h"

namespace umbra::testing {
namespace {

const std::string P = "KnownCounts.Program.";

class ShadowKnownCounts : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string dir = scratch_dir("shadow_known_counts");
    plain_ = new ProcessResult(run_process(app_command("KnownCounts")));
    profiled_ =
        new ProcessResult(run_process(with_app({launcher_path(), "run", "--hooks-for", "all", "-o", dir + "/report", "--"},
                                               "KnownCounts")));
    report_ = new JsonValue(load_report(dir + "/report.json"));
    text_ = new std::string(profiled_->err);
    std::ifstream text(dir + "/report.txt");
    text_report_ = new std::string(std::istreambuf_iterator<char>(text), {});
  }
  static void TearDownTestSuite() {
    delete plain_;
    delete profiled_;
    delete report_;
    delete text_;
    delete text_report_;
  }
  static const JsonValue& main_thread() {
    const JsonValue* t = thread_with_root(*report_, P + "Main");
    if (!t) throw std::runtime_error("no thread has KnownCounts.Program.Main as a root");
    return *t;
  }
  static uint64_t calls_at(const std::vector<std::string>& path) {
    const JsonValue* n = find_path(main_thread(), path);
    return n ? calls_of(*n) : 0;
  }

  static ProcessResult* plain_;
  static ProcessResult* profiled_;
  static JsonValue* report_;
  static std::string* text_;
  static std::string* text_report_;
};
ProcessResult* ShadowKnownCounts::plain_;
ProcessResult* ShadowKnownCounts::profiled_;
JsonValue* ShadowKnownCounts::report_;
std::string* ShadowKnownCounts::text_;
std::string* ShadowKnownCounts::text_report_;

TEST_F(ShadowKnownCounts, ProgramOutputAndExitCodeAreUnchanged) {
  EXPECT_EQ(plain_->exit_code, 3);
  EXPECT_EQ(profiled_->exit_code, 3);
  EXPECT_EQ(profiled_->out, plain_->out);
  EXPECT_EQ(plain_->out, "fib=6765 caught=100 sink=5303 abi=50\n");
}

TEST_F(ShadowKnownCounts, ReportHeader) {
  EXPECT_EQ(report_->find("schema")->as_string(), "umbra-report/4");
  EXPECT_EQ(report_->find("mode")->as_string(), "shadow");
  EXPECT_GT(report_->find("pid")->as_int(), 0);
  // The runtime's own version, also for a self-contained program (whose runtime sits in the program's directory).
  EXPECT_EQ(report_->find("runtime")->as_string(), expected_runtime_version());
  EXPECT_NE(text_report_->find("(runtime " + expected_runtime_version() + "),"), std::string::npos)
      << text_report_->substr(0, 200);
  EXPECT_GT(report_->find("duration_ns")->as_uint(), 0u);
  EXPECT_EQ(report_->find("stats")->find("report_trigger")->as_string(), "shutdown");
  EXPECT_EQ(report_->find("stats")->find("hook_family")->as_string(), expected_hook_family());
}

std::string with_commas(uint64_t v) {
  std::string digits = std::to_string(v), out;
  for (size_t i = 0; i < digits.size(); ++i) out += (i && (digits.size() - i) % 3 == 0 ? "," : "") + digits.substr(i, 1);
  return out;
}

// A line of the text report's header gives the snapshots' numbers, the JSON's.
TEST_F(ShadowKnownCounts, TextReportSaysWhatTheSnapshotsFound) {
  const JsonValue* reconcile = report_->find("stats")->find("reconcile");
  ASSERT_NE(reconcile, nullptr);
  std::string expected = "\nreconciled: " + with_commas(reconcile->find("snapshots")->as_uint()) + " snapshots, " +
                         with_commas(reconcile->find("frames_compared")->as_uint()) + " frames compared, 0 unexplained";
  size_t at = text_report_->find(expected);
  ASSERT_NE(at, std::string::npos) << text_report_->substr(0, 400);
  EXPECT_LT(at, text_report_->find("\n=== thread")) << "not in the header";
}

// Arguments and return values in registers survive the hooks (the program checks each result) and every call
// is counted.
TEST_F(ShadowKnownCounts, RegisterArgumentsAndResultsSurviveTheHooks) {
  for (const char* method : {"ManyArguments", "TwoDoubles", "TwoLongs"})
    EXPECT_EQ(calls_at({P + "Main", P + "RunRegisterArguments", P + method}), 50u) << method;
}

TEST_F(ShadowKnownCounts, LoopCallsAreExact) {
  EXPECT_EQ(calls_at({P + "Main"}), 1u);
  EXPECT_EQ(calls_at({P + "Main", P + "RunLoop"}), 1u);
  EXPECT_EQ(calls_at({P + "Main", P + "RunLoop", P + "Leaf"}), 1000u);
}

// Calls of Fib at each depth of Fib(n)'s call tree (depth 0: the first call), as the program's source makes them.
void fib_calls_by_depth(int n, size_t depth, std::vector<uint64_t>& calls) {
  if (calls.size() <= depth) calls.resize(depth + 1);
  ++calls[depth];
  if (n < 2) return;
  fib_calls_by_depth(n - 1, depth + 1, calls);
  fib_calls_by_depth(n - 2, depth + 1, calls);
}

TEST_F(ShadowKnownCounts, RecursionIsExactAtEveryDepth) {
  std::vector<uint64_t> expected;
  fib_calls_by_depth(20, 0, expected);
  ASSERT_EQ(expected.size(), 20u);  // Fib(20) -> Fib(19) -> ... -> Fib(1)
  const JsonValue* fib = find_path(main_thread(), {P + "Main", P + "RunRecursion", P + "Fib"});
  ASSERT_NE(fib, nullptr);
  // The calls at one depth share a path, so each depth is one node, directly under the depth above it.
  std::vector<const JsonValue*> levels = direct_chain(*fib, P + "Fib");
  ASSERT_EQ(levels.size(), expected.size());
  for (size_t d = 0; d < levels.size(); ++d) {
    EXPECT_EQ(calls_of(*levels[d]), expected[d]) << "depth " << d;
    // Besides, a level may have native children: samples of the runtime's code (the JIT, its stubs) above it.
    size_t managed_children = 0;
    for (const auto& c : children_of(*levels[d])) managed_children += c.find("kind")->as_string() == "managed";
    EXPECT_EQ(managed_children, d + 1 < levels.size() ? 1u : 0u) << "depth " << d;
  }
  EXPECT_EQ(total_calls(roots_of(main_thread()), P + "Fib"), 21891u);
}

TEST_F(ShadowKnownCounts, GenericsAndNestedTypesAreNamed) {
  EXPECT_EQ(calls_at({P + "Main", P + "RunGenerics", "KnownCounts.Box`1.Get"}), 50u);  // Box<int> + Box<string>
  EXPECT_EQ(calls_at({P + "Main", P + "RunGenerics", "KnownCounts.Box`1..ctor"}), 2u);
  EXPECT_EQ(calls_at({P + "Main", P + "RunGenerics", "KnownCounts.Outer+Inner.Nested"}), 10u);
  const JsonValue* get = find_path(main_thread(), {P + "Main", P + "RunGenerics", "KnownCounts.Box`1.Get"});
  ASSERT_NE(get, nullptr);
  EXPECT_EQ(get->find("module")->as_string(), "KnownCounts.dll");
  EXPECT_EQ(get->find("kind")->as_string(), "managed");
}

TEST_F(ShadowKnownCounts, NamedWorkersHaveTheirOwnCounts) {
  for (int k = 1; k <= 4; ++k) {
    const JsonValue* worker = thread_named(*report_, "Worker-" + std::to_string(k));
    ASSERT_NE(worker, nullptr) << "Worker-" << k;
    EXPECT_EQ(total_calls(roots_of(*worker), P + "WorkerBody"), 1u);
    EXPECT_EQ(total_calls(roots_of(*worker), P + "Work"), uint64_t(k) * 100);
    const JsonValue* body = find_anywhere(roots_of(*worker), P + "WorkerBody");
    ASSERT_NE(body, nullptr);
    const JsonValue* work = find_path(*worker, {"System.Threading.Thread.StartCallback"});
    ASSERT_NE(work, nullptr);
    int direct_work_children = 0;
    for (const auto& c : children_of(*body)) direct_work_children += name_of(c) == P + "Work";
    EXPECT_EQ(direct_work_children, 1);
    EXPECT_GT(worker->find("os_tid")->as_uint(), 0u);
    EXPECT_TRUE(worker->find("exited")->as_bool());
  }
  // The main thread runs no Work at all.
  EXPECT_EQ(total_calls(roots_of(main_thread()), P + "Work"), 0u);
}

TEST_F(ShadowKnownCounts, ShortLivedThreadsAreEachReported) {
  int threads = 0;
  std::set<uint64_t> tids;
  for (const auto& t : threads_of(*report_)) {
    uint64_t body = total_calls(roots_of(t), P + "ShortLivedBody");
    if (body == 0) continue;
    ++threads;
    EXPECT_EQ(body, 1u);
    EXPECT_EQ(total_calls(roots_of(t), P + "ShortLived"), 1u);
    const JsonValue* sl = find_anywhere(roots_of(t), P + "ShortLived");
    EXPECT_NE(find_anywhere(children_of(*sl), P + "ShortLivedBody"), nullptr);
    tids.insert(t.find("os_tid")->as_uint());
  }
  EXPECT_EQ(threads, 500);
  EXPECT_GT(tids.size(), 1u);
}

TEST_F(ShadowKnownCounts, ExceptionsLeaveTheShadowStackExact) {
  std::vector<std::string> path = {P + "Main", P + "RunExceptions"};
  for (int level = 1; level <= 5; ++level) {
    path.push_back(P + "Level" + std::to_string(level));
    EXPECT_EQ(calls_at(path), 100u) << path.back();
  }
  // After each catch, the next call sits directly under its real caller...
  EXPECT_EQ(calls_at({P + "Main", P + "RunExceptions", P + "AfterCatch"}), 100u);
  // ...and nowhere else: not under the frames the exceptions unwound.
  EXPECT_EQ(total_calls(roots_of(main_thread()), P + "AfterCatch"), 100u);
  const JsonValue* level1 = find_path(main_thread(), {P + "Main", P + "RunExceptions", P + "Level1"});
  EXPECT_EQ(find_anywhere(children_of(*level1), P + "AfterCatch"), nullptr);
  const JsonValue* stats = report_->find("stats");
  EXPECT_EQ(stats->find("exception_unwinds")->as_uint(), 500u);  // 100 throws x 5 unwound frames
}

TEST_F(ShadowKnownCounts, NothingWasDropped) {
  const JsonValue* stats = report_->find("stats");
  ASSERT_NE(stats, nullptr);
  const JsonValue* drops = stats->find("drops");
  ASSERT_NE(drops, nullptr);
  for (const char* reason : {"stack_overflow", "tree_full", "no_thread_state", "unmatched_leave"}) {
    ASSERT_NE(drops->find(reason), nullptr) << reason;
    EXPECT_EQ(drops->find(reason)->as_uint(), 0u) << reason;
  }
  ASSERT_NE(stats->find("enter_hooks"), nullptr);
  EXPECT_GT(stats->find("enter_hooks")->as_uint(), 21891u);
  const JsonValue* sampler = stats->find("sampler");
  const JsonValue* reconcile = stats->find("reconcile");
  ASSERT_NE(sampler, nullptr);
  ASSERT_NE(reconcile, nullptr);
  for (const char* key : {"ticks", "suspensions"}) ASSERT_NE(sampler->find(key), nullptr) << key;
  for (const char* key : {"snapshots", "unexplained"}) ASSERT_NE(reconcile->find(key), nullptr) << key;
  // The defaults: a tick every 10 ms on average (5 to 15 ms), a snapshot every 100 ms, so every 10th tick
  // suspends the runtime for one. RunTimed alone lasts at least 300 ms: at least 20 ticks, at least 2 snapshots.
  uint64_t ticks = sampler->find("ticks")->as_uint();
  uint64_t snapshot_ticks = sampler->find("suspensions")->as_uint();
  EXPECT_GE(ticks, 20u);
  EXPECT_GE(snapshot_ticks, 2u);
  EXPECT_GE(snapshot_ticks + 1, ticks / 10) << snapshot_ticks << " snapshots in " << ticks << " ticks";
  EXPECT_LE(snapshot_ticks, ticks / 10 + 1) << snapshot_ticks << " snapshots in " << ticks << " ticks";
  // Those snapshots were compared with the shadow stacks.
  EXPECT_GE(reconcile->find("snapshots")->as_uint(), 2u);
  EXPECT_EQ(reconcile->find("unexplained")->as_uint(), 0u);
}

TEST_F(ShadowKnownCounts, TimesAreConsistent) {
  // Only called methods have times; native frames seen by samples above them have samples only.
  auto timed = [](const JsonValue& n) { return n.find("total_ns")->is_number(); };
  size_t timed_nodes = 0;
  for_each_node(*report_, [&](const JsonValue& n) {
    if (!timed(n)) {
      EXPECT_EQ(n.find("kind")->as_string(), "native") << name_of(n);
      return;
    }
    ++timed_nodes;
    uint64_t total = n.find("total_ns")->as_uint();
    uint64_t self = n.find("self_ns")->as_uint();
    uint64_t children = 0;
    for (const auto& c : children_of(n))
      if (timed(c)) children += c.find("total_ns")->as_uint();
    ASSERT_LE(self, total) << name_of(n);
    ASSERT_EQ(self, total > children ? total - children : 0) << name_of(n);
  });
  EXPECT_GT(timed_nodes, 100u);
  const JsonValue* main = find_path(main_thread(), {P + "Main"});
  EXPECT_LT(main->find("total_ns")->as_uint(), report_->find("duration_ns")->as_uint());
}

// Call times are unbiased in aggregate whichever clock the hooks read (the 1 ms clock while calls are frequent,
// the TSC while they are rare): calls of known least duration add up to at least that (less the share of the loop
// spent between calls) whatever their length.
TEST_F(ShadowKnownCounts, CallTimesAddUpToTheKnownDurations) {
  const JsonValue& stats = *report_->find("stats");
  EXPECT_EQ(stats.find("call_timing")->as_string(), "coarse_1ms_when_busy");
  const uint64_t clock_ms = stats.find("coarse_clock_ms")->as_uint() + stats.find("exact_clock_ms")->as_uint();
  EXPECT_GT(clock_ms, 0u);
  EXPECT_LE(clock_ms, report_->find("duration_ns")->as_uint() / 1000000 + 1);
  const JsonValue* pause = find_path(main_thread(), {P + "Main", P + "RunTimed", P + "Pause"});
  const JsonValue* spin = find_path(main_thread(), {P + "Main", P + "RunTimed", P + "Spin"});
  ASSERT_NE(pause, nullptr);
  ASSERT_NE(spin, nullptr);
  EXPECT_EQ(calls_of(*pause), 4u);
  EXPECT_EQ(calls_of(*spin), 5000u);
  EXPECT_GE(pause->find("total_ns")->as_uint(), 195'000'000u);  // four sleeps of 50 ms, one tick short at most
  EXPECT_LT(pause->find("total_ns")->as_uint(), 1'000'000'000u);
  EXPECT_GE(spin->find("total_ns")->as_uint(), 80'000'000u);  // 5,000 x 20 us, most of the loop's 100+ ms
}

// With the coarse clock throughout, a single call much shorter than its period is charged 0 or one period: of 20
// nested layers each spinning 50 us of its own, at most a few see the clock move.
TEST_F(ShadowKnownCounts, WithTheCoarseClockAShortCallIsChargedZeroOrOnePeriod) {
  std::string dir = scratch_dir("shadow_known_counts_coarse");
  ProcessResult r =
      run_process(with_app({launcher_path(), "run", "--hooks-for", "all", "--coarse-times", "-o", dir + "/report", "--"},
                           "KnownCounts"));
  ASSERT_EQ(r.exit_code, 3) << r.err;
  JsonValue report = load_report(dir + "/report.json");
  const JsonValue& stats = *report.find("stats");
  EXPECT_EQ(stats.find("call_timing")->as_string(), "coarse_1ms");
  EXPECT_EQ(stats.find("exact_clock_ms")->as_uint(), 0u);
  const JsonValue* main = thread_with_root(report, P + "Main");
  ASSERT_NE(main, nullptr);
  const JsonValue* layer = find_path(*main, {P + "Main", P + "RunTimed", P + "Layer"});
  ASSERT_NE(layer, nullptr);
  std::vector<const JsonValue*> layers = direct_chain(*layer, P + "Layer");
  ASSERT_EQ(layers.size(), 20u);
  int unmoved = 0;
  for (size_t d = 0; d < layers.size(); ++d) {
    uint64_t below = d + 1 < layers.size() ? layers[d + 1]->find("total_ns")->as_uint() : 0;
    unmoved += layers[d]->find("total_ns")->as_uint() == below;
  }
  EXPECT_GE(unmoved, 10) << "of 20 layers of 50 us, with a 1 ms clock";
}

TEST_F(ShadowKnownCounts, PrecompiledFrameworkCodeIsInstrumented) {
  // Console.WriteLine lives in a ReadyToRun framework assembly: it is seen only if precompiled code is set aside.
  EXPECT_EQ(calls_at({P + "Main", "System.Console.WriteLine"}), 1u);
}

// The default: the program's own code hooked (@app), its calls exact on the same paths as with every method hooked,
// the framework seen by samples only (no calls), and the header saying what was hooked and how to hook more.
TEST(ShadowKnownCountsByDefault, TheProgramsOwnMethodsAreCountedExactly) {
  std::string dir = scratch_dir("shadow_known_counts_default");
  ProcessResult r = run_process(with_app({launcher_path(), "run", "-o", dir + "/report", "--"}, "KnownCounts"));
  ASSERT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(r.out, "fib=6765 caught=100 sink=5303 abi=50\n");
  JsonValue report = load_report(dir + "/report.json");
  EXPECT_EQ(report.find("stats")->find("hooks_for")->as_string(), "@app");
  const JsonValue* main = thread_with_root(report, P + "Main");
  ASSERT_NE(main, nullptr);
  EXPECT_EQ(calls_of(*find_path(*main, {P + "Main", P + "RunLoop", P + "Leaf"})), 1000u);
  EXPECT_EQ(total_calls(roots_of(*main), P + "Fib"), 21891u);
  EXPECT_EQ(calls_of(*find_path(*main, {P + "Main", P + "RunGenerics", "KnownCounts.Box`1.Get"})), 50u);
  for (int k = 1; k <= 4; ++k) {
    const JsonValue* worker = thread_named(report, "Worker-" + std::to_string(k));
    ASSERT_NE(worker, nullptr) << "Worker-" << k;
    EXPECT_EQ(total_calls(roots_of(*worker), P + "Work"), uint64_t(k) * 100);
  }
  uint64_t framework_calls = 0;
  for_each_node(report, [&](const JsonValue& n) {
    if (n.find("module")->as_string().rfind("System.", 0) == 0) framework_calls += calls_of(n);
  });
  EXPECT_EQ(framework_calls, 0u);
  std::string text = read_file(dir + "/report.txt");
  EXPECT_NE(text.find("hooks for @app: "), std::string::npos) << text.substr(0, 600);
  EXPECT_NE(text.find("exact calls of more: --hooks-for PATTERNS or all"), std::string::npos) << text.substr(0, 600);
}

TEST_F(ShadowKnownCounts, LauncherSaysWhereTheReportWent) {
  EXPECT_NE(profiled_->err.find("umbra: report of pid "), std::string::npos) << profiled_->err;
  EXPECT_NE(profiled_->err.find("report.json"), std::string::npos);
}

}  // namespace
}  // namespace umbra::testing
