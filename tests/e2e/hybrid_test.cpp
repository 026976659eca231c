// Shadow mode with snapshots: explicit IL tail calls counted exactly, reconciliation that finds nothing
// unexplained, and native frames spliced between a managed caller and a managed callback.
#include <gtest/gtest.h>

#include <fstream>

#include "e2e_env.h"
#include "process.h"
#include "report_query.h"

namespace umbra::testing {
namespace {

const std::string T = "TailCalls.Program.";
const std::string E = "TailEmit.Chains.";

class HybridTailCalls : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string dir = scratch_dir("hybrid_tail_calls");
    std::vector<std::string> modes = {"self", "mutual", "throw", "native", "helper", "implicit"};
    std::vector<std::string> plain_argv = app_command("TailCalls");
    plain_argv.insert(plain_argv.end(), modes.begin(), modes.end());
    plain_ = new ProcessResult(run_process(plain_argv));
    std::vector<std::string> argv = {launcher_path(), "run", "--verify", "-o", dir + "/r", "--"};
    argv.insert(argv.end(), plain_argv.begin(), plain_argv.end());
    profiled_ = new ProcessResult(run_process(argv));
    report_ = new JsonValue(load_report(dir + "/r.json"));
    std::ifstream text(dir + "/r.txt");
    text_ = new std::string(std::istreambuf_iterator<char>(text), {});
  }
  static void TearDownTestSuite() {
    delete plain_;
    delete profiled_;
    delete report_;
    delete text_;
  }
  static const JsonValue& main_thread() { return *thread_with_root(*report_, T + "Main"); }
  static const JsonValue* at(const std::vector<std::string>& path) { return find_path(main_thread(), path); }
  static uint64_t tail_of(const JsonValue* n) { return n ? n->find("tail_entries")->as_uint() : 0; }
  // The node at `path` exists, with exactly these calls and tail entries.
  static void expect_node(const std::vector<std::string>& path, uint64_t calls, uint64_t tail_entries) {
    const JsonValue* n = at(path);
    ASSERT_NE(n, nullptr) << path.back();
    EXPECT_EQ(calls_of(*n), calls) << path.back();
    EXPECT_EQ(tail_of(n), tail_entries) << path.back();
  }

  static ProcessResult* plain_;
  static ProcessResult* profiled_;
  static JsonValue* report_;
  static std::string* text_;
};
ProcessResult* HybridTailCalls::plain_;
ProcessResult* HybridTailCalls::profiled_;
JsonValue* HybridTailCalls::report_;
std::string* HybridTailCalls::text_;

TEST_F(HybridTailCalls, ProgramUnchangedAndNothingUnexplained) {
  ASSERT_EQ(plain_->exit_code, 0);
  EXPECT_EQ(profiled_->exit_code, 0) << profiled_->err;
  EXPECT_EQ(profiled_->out, plain_->out);
  EXPECT_EQ(plain_->out, "tail calls: 2000102\n");
  const JsonValue* reconcile = report_->find("stats")->find("reconcile");
  ASSERT_NE(reconcile, nullptr);
  EXPECT_GT(reconcile->find("snapshots")->as_uint(), 0u);
  EXPECT_GT(reconcile->find("frames_compared")->as_uint(), 0u);
  EXPECT_EQ(reconcile->find("unexplained")->as_uint(), 0u);
  EXPECT_NE(profiled_->err.find("0 UNEXPLAINED differences"), std::string::npos) << profiled_->err;
  EXPECT_EQ(report_->find("stats")->find("drops")->find("unmatched_leave")->as_uint(), 0u);
  EXPECT_TRUE(report_->find("stats")->find("recursive_tail_calls_counted")->as_bool());
  EXPECT_EQ(report_->find("stats")->find("hook_family")->as_string(), expected_hook_family());
}

TEST_F(HybridTailCalls, SelfTailRecursionTwoMillionDeep) {
  const JsonValue* self = at({T + "Main", T + "RunSelf", E + "SelfTail"});
  ASSERT_NE(self, nullptr);
  EXPECT_EQ(calls_of(*self), 2000001u);
  EXPECT_EQ(tail_of(self), 2000000u);
  EXPECT_EQ(find_anywhere(children_of(*self), E + "SelfTail"), nullptr) << "no chain of frames";
}

// The text report's line for a method says how many of its calls came through a tail call.
TEST_F(HybridTailCalls, TextReportMarksTailEntries) {
  auto line_of = [&](const std::string& method) {
    size_t at = text_->find("  " + method + "  [");
    if (at == std::string::npos) return std::string();
    size_t start = text_->rfind('\n', at) + 1;
    return text_->substr(start, text_->find('\n', at) - start);
  };
  std::string self = line_of(E + "SelfTail");
  EXPECT_NE(self.find("2,000,001 "), std::string::npos) << self;
  EXPECT_NE(self.find("  (2,000,000 via tail call)"), std::string::npos) << self;
  std::string run_self = line_of(T + "RunSelf");
  ASSERT_FALSE(run_self.empty()) << *text_;
  EXPECT_EQ(run_self.find("via tail call"), std::string::npos) << run_self;
}

TEST_F(HybridTailCalls, MutualTailRecursionOneMillionDeep) {
  expect_node({T + "Main", T + "RunMutual", E + "IsEven"}, 500001, 500000);
  expect_node({T + "Main", T + "RunMutual", E + "IsOdd"}, 500000, 500000);
}

TEST_F(HybridTailCalls, TailCallEndingInAThrow) {
  const JsonValue* chain = at({T + "Main", T + "RunThrow", E + "TailThrow"});
  ASSERT_NE(chain, nullptr);
  EXPECT_EQ(calls_of(*chain), 100100u);  // 100 x (1 + 1,000 tail calls)
  EXPECT_EQ(tail_of(chain), 100000u);
  EXPECT_EQ(calls_of(*at({T + "Main", T + "RunThrow", T + "AfterThrow"})), 100u);
  EXPECT_EQ(total_calls(roots_of(main_thread()), T + "AfterThrow"), 100u);
}

TEST_F(HybridTailCalls, TailCallIntoNativeCode) {
  const JsonValue* chain = at({T + "Main", T + "RunNative", E + "TailToNative"});
  ASSERT_NE(chain, nullptr);
  EXPECT_EQ(calls_of(*chain), 1001u);
  const JsonValue* native_caller = at({T + "Main", T + "RunNative", T + "CallsNative"});
  ASSERT_NE(native_caller, nullptr);
  EXPECT_EQ(calls_of(*native_caller), 1u);
  EXPECT_EQ(tail_of(native_caller), 1u) << "entered through the last tail call, beside its caller";
}

TEST_F(HybridTailCalls, HelperBasedTailCallsStayShallow) {
  EXPECT_EQ(total_calls(roots_of(main_thread()), E + "HelperChain"), 100001u);
  EXPECT_EQ(total_calls(roots_of(main_thread()), E + "HelperWide"), 100000u);
  // However the runtime dispatches them, the tree stays shallow: no node sits more than a few levels below RunHelper.
  int deepest = 0;
  for_each_path(main_thread(), [&](const std::vector<const JsonValue*>& path) {
    if (name_of(*path.back()).rfind(E, 0) == 0) deepest = std::max(deepest, int(path.size()));
  });
  EXPECT_LE(deepest, 6);
}

// The JIT makes no opportunistic tail call while enter/leave hooks are on (with or without --allow-inlining), so
// ImplicitCaller's frame stays: every ImplicitCallee call sits under it, none entered through a tail call.
TEST_F(HybridTailCalls, ImplicitTailCallCandidatesStayUnderTheirCaller) {
  expect_node({T + "Main", T + "RunImplicit", T + "ImplicitCaller"}, 1000, 0);
  expect_node({T + "Main", T + "RunImplicit", T + "ImplicitCaller", T + "ImplicitCallee"}, 1000, 0);
  EXPECT_EQ(total_calls(roots_of(main_thread()), T + "ImplicitCaller"), 1000u);
  EXPECT_EQ(total_calls(roots_of(main_thread()), T + "ImplicitCallee"), 1000u);
}

TEST(Hybrid, KnownCountsStayExactWhenCheckedAtEveryTick) {
  std::string dir = scratch_dir("hybrid_known_counts");
  ProcessResult r = run_process(
      with_app({launcher_path(), "run", "--verify", "--interval-ms", "1", "-o", dir + "/r", "--"}, "KnownCounts"));
  ASSERT_EQ(r.exit_code, 3) << r.err;
  JsonValue report = load_report(dir + "/r.json");
  const std::string P = "KnownCounts.Program.";
  const JsonValue* main = thread_with_root(report, P + "Main");
  ASSERT_NE(main, nullptr);
  const JsonValue* fib = find_path(*main, {P + "Main", P + "RunRecursion", P + "Fib"});
  ASSERT_NE(fib, nullptr);
  EXPECT_EQ(calls_of(*fib) + total_calls(children_of(*fib), P + "Fib"), 21891u);
  EXPECT_EQ(calls_of(*find_path(*main, {P + "Main", P + "RunExceptions", P + "AfterCatch"})), 100u);
  EXPECT_EQ(total_calls(roots_of(*main), P + "AfterCatch"), 100u);
  for (int k = 1; k <= 4; ++k)
    EXPECT_EQ(total_calls(roots_of(*thread_named(report, "Worker-" + std::to_string(k))), P + "Work"),
              uint64_t(k) * 100);
  const JsonValue* reconcile = report.find("stats")->find("reconcile");
  const JsonValue* sampler = report.find("stats")->find("sampler");
  ASSERT_NE(reconcile, nullptr);
  ASSERT_NE(sampler, nullptr);
  // --verify: every tick suspends the runtime for a snapshot (or counts why it could not), but perhaps the last,
  // which the end of the run may cut short.
  const JsonValue* sampler_drops = sampler->find("drops");
  ASSERT_NE(sampler_drops, nullptr);
  uint64_t ticks = sampler->find("ticks")->as_uint();
  uint64_t tried = sampler->find("suspensions")->as_uint() + sampler_drops->find("suspend_failed")->as_uint() +
                   sampler_drops->find("suspension_in_progress")->as_uint();
  EXPECT_GE(ticks, 100u);  // RunTimed alone lasts 300 ms, at ticks 1 ms apart on average
  EXPECT_LE(tried, ticks);
  EXPECT_GE(tried + 1, ticks) << tried << " snapshots tried in " << ticks << " ticks";
  EXPECT_EQ(reconcile->find("unexplained")->as_uint(), 0u);
  EXPECT_EQ(report.find("stats")->find("drops")->find("unmatched_leave")->as_uint(), 0u);
}

TEST(Hybrid, NativeSegmentBetweenCallerAndCallbackInShadowMode) {
  std::string dir = scratch_dir("hybrid_callback");
  ProcessResult r = run_process(
      with_app({launcher_path(), "run", "--interval-ms", "2", "--reconcile-ms", "20", "-o", dir + "/r", "--"},
               "NativeMix", {"callback"}),
      {{"UMBRA_TEST_NATIVE_LIB", native_test_library()}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  JsonValue report = load_report(dir + "/r.json");
  uint64_t callback_calls = 0, callback_samples = 0, with_segment = 0;
  for (const auto& thread : threads_of(report)) {
    for_each_path(thread, [&](const std::vector<const JsonValue*>& path) {
      const JsonValue& n = *path.back();
      if (name_of(n) != "NativeMix.Program.Callback") return;
      callback_calls += calls_of(n);
      callback_samples += samples_of(n);
      bool trampoline = false;
      for (size_t i = path.size() - 1; i-- > 0;) {
        if (path[i]->find("kind")->as_string() == "managed") {
          if (name_of(*path[i]) == "NativeMix.Program.RunCallback" && trampoline) with_segment += samples_of(n);
          break;
        }
        trampoline |= name_of(*path[i]) == "umbra_native_trampoline";
      }
    });
  }
  EXPECT_EQ(callback_calls, 300u);  // exact calls survive the splice
  ASSERT_GT(callback_samples, 100u);
  EXPECT_GE(2 * with_segment, callback_samples) << with_segment << " of " << callback_samples;
  EXPECT_EQ(report.find("stats")->find("reconcile")->find("unexplained")->as_uint(), 0u);
}

TEST(Hybrid, ReconcilingCanBeTurnedOff) {
  // --reconcile-ms 0: no snapshots (and no stack-snapshot flag on the hooks), the same exact counts.
  std::string dir = scratch_dir("hybrid_off");
  ProcessResult r =
      run_process(with_app({launcher_path(), "run", "--reconcile-ms", "0", "-o", dir + "/r", "--"}, "KnownCounts"));
  ASSERT_EQ(r.exit_code, 3) << r.err;
  JsonValue report = load_report(dir + "/r.json");
  EXPECT_EQ(report.find("stats")->find("reconcile")->find("snapshots")->as_uint(), 0u);
  EXPECT_EQ(report.find("stats")->find("sampler")->find("suspensions")->as_uint(), 0u);
  const std::string P = "KnownCounts.Program.";
  EXPECT_EQ(total_calls(roots_of(*thread_with_root(report, P + "Main")), P + "Leaf"), 1000u);
}

}  // namespace
}  // namespace umbra::testing
