// Sampled mode on the real runtime: native frames above and between managed ones, shares of samples, thread churn,
// a thread blocked in native code.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "e2e_env.h"
#include "process.h"
#include "report_query.h"

namespace umbra::testing {
namespace {

const std::string P = "NativeMix.Program.";

struct ProfiledRun {
  ProcessResult process;
  JsonValue report;
};

ProfiledRun profile_native_mix(const std::string& name, const std::vector<std::string>& args, const char* interval_ms = "10") {
  std::string dir = scratch_dir("sampled_" + name);
  std::vector<std::string> argv = with_app(
      {launcher_path(), "run", "--mode", "sampled", "--interval-ms", interval_ms, "-o", dir + "/r", "--"}, "NativeMix");
  argv.insert(argv.end(), args.begin(), args.end());
  ProfiledRun run{run_process(argv, {{"UMBRA_TEST_NATIVE_LIB", native_test_library()}}), {}};
  run.report = load_report(dir + "/r.json");
  return run;
}

// Samples taken without the native top the thread was asked for: too late (waiting for a CPU on a busy machine),
// for an earlier tick, faulted, or with the loader busy. The walker by signal drops them; the suspending walker
// keeps the managed stack alone.
uint64_t lost_native_tops(const JsonValue& report) {
  const JsonValue& drops = *report.find("stats")->find("sampler")->find("drops");
  uint64_t lost = 0;
  for (const char* reason : {"native_top_timeout", "native_top_stale", "native_top_fault", "loader_busy"})
    lost += drops.find(reason)->as_uint();
  return lost;
}

// "reason=count" for each drop the sampler counted: what a missing frame may be explained by.
std::string nonzero_drops(const JsonValue& report) {
  std::string out;
  for (const auto& [reason, count] : report.find("stats")->find("sampler")->find("drops")->as_object())
    if (count.as_uint() != 0) out += reason + "=" + std::to_string(count.as_uint()) + " ";
  return out;
}

const JsonValue& main_thread(const JsonValue& report) {
  const JsonValue* t = thread_with_root(report, "dotnet+0x6bd9");
  if (t) return *t;
  for (const auto& thread : threads_of(report))
    if (find_anywhere(roots_of(thread), P + "Main")) return thread;
  throw std::runtime_error("no thread runs NativeMix.Program.Main");
}

TEST(Sampled, ReportShapeAndUnchangedProgram) {
  ProfiledRun run = profile_native_mix("shape", {"ratio"});
  EXPECT_EQ(run.process.exit_code, 0) << run.process.err;
  EXPECT_EQ(run.process.out.rfind("ratio done three_permille=", 0), 0u) << run.process.out;
  EXPECT_EQ(run.report.find("mode")->as_string(), "sampled");
  EXPECT_EQ(run.report.find("runtime")->as_string(), expected_runtime_version());
  const JsonValue* sampler = run.report.find("stats")->find("sampler");
  ASSERT_NE(sampler, nullptr);
  EXPECT_GT(sampler->find("ticks")->as_uint(), 50u);
  EXPECT_GT(sampler->find("suspended_ns_max")->as_uint(), 0u);
  // The sampler works at every tick and sleeps between ticks: its CPU time per tick is some, but less than a tick.
  EXPECT_GT(sampler->find("cpu_ns_per_tick")->as_uint(), 0u);
  EXPECT_LT(sampler->find("cpu_ns_per_tick")->as_uint(), sampler->find("interval_ms")->as_uint() * 1000000u);
  EXPECT_TRUE(sampler->find("native_tops")->as_bool());
  // The capture handler answered: what each answer cost its thread is some CPU time, less than a tick.
  ASSERT_NE(sampler->find("capture_cpu_ns_mean"), nullptr);
  EXPECT_GT(sampler->find("capture_cpu_ns_mean")->as_uint(), 0u);
  EXPECT_LT(sampler->find("capture_cpu_ns_mean")->as_uint(), sampler->find("interval_ms")->as_uint() * 1000000u);
  ASSERT_NE(sampler->find("drops"), nullptr);
  for_each_node(run.report, [](const JsonValue& n) {
    ASSERT_TRUE(n.find("calls")->is_null());
    ASSERT_TRUE(n.find("total_ns")->is_null());
  });
  const JsonValue& main = main_thread(run.report);
  EXPECT_GT(main.find("managed_samples")->as_uint(), 0u);
  EXPECT_FALSE(main.find("native_samples")->is_null());
}

TEST(Sampled, NativeFunctionAboveItsManagedCaller) {
  ProfiledRun run = profile_native_mix("spin", {"spin"});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  const JsonValue* spin = find_anywhere(roots_of(main_thread(run.report)), P + "Spin");
  ASSERT_NE(spin, nullptr);
  uint64_t in_native = 0;
  for (const auto& c : children_of(*spin)) {
    if (name_of(c) == "umbra_native_spin") {
      EXPECT_EQ(c.find("kind")->as_string(), "native");
      EXPECT_EQ(c.find("module")->as_string(), "libumbra_testnative.so");
      in_native += samples_of(c);
    }
  }
  ASSERT_GT(samples_of(*spin), 50u);
  const uint64_t with_top = samples_of(*spin) - std::min(lost_native_tops(run.report), samples_of(*spin));
  EXPECT_GT(with_top, 50u);
  EXPECT_GE(double(in_native), 0.9 * double(with_top)) << in_native << " of " << samples_of(*spin);
  EXPECT_GT(main_thread(run.report).find("native_samples")->as_uint(), 50u);
}

// A native frame is named after the tick that first meets it, on the sampler's thread, so that the report at exit
// finds the names made (reading a module's symbol table is most of naming): in both modes, nearly none is left for
// the report (the last tick's, if the program ended meanwhile).
TEST(Sampled, NativeFramesAreNamedWhileTheProgramRuns) {
  for (const char* mode : {"sampled", "shadow"}) {
    std::string dir = scratch_dir(std::string("named_while_running_") + mode);
    std::vector<std::string> argv = with_app({launcher_path(), "run", "--mode", mode, "--log-level", "info", "-o",
                                              dir + "/r", "--"}, "NativeMix");
    argv.push_back("callback");
    ProcessResult run = run_process(argv, {{"UMBRA_TEST_NATIVE_LIB", native_test_library()}});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    unsigned long in_run = 0, by_report = 0;
    const size_t at = run.err.find("native frames named while the program ran ");
    ASSERT_NE(at, std::string::npos) << run.err;
    ASSERT_EQ(std::sscanf(run.err.c_str() + at, "native frames named while the program ran %lu, by the report %lu",
                          &in_run, &by_report), 2) << run.err.substr(at, 120);
    EXPECT_GT(in_run, 20u) << mode;
    EXPECT_LE(by_report * 10, in_run) << mode << ": " << by_report << " named by the report";
  }
}

TEST(Sampled, NativeFramesBetweenManagedCallerAndCallback) {
  ProfiledRun run = profile_native_mix("callback", {"callback"});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  uint64_t callback_samples = 0, with_native_between = 0;
  for_each_path(main_thread(run.report), [&](const std::vector<const JsonValue*>& path) {
    if (name_of(*path.back()) != P + "Callback") return;
    callback_samples += samples_of(*path.back());
    // Walk up to the nearest managed ancestor: it must be RunCallback, with the library's frames in between.
    bool trampoline = false, entry = false;
    for (size_t i = path.size() - 1; i-- > 0;) {
      const JsonValue& n = *path[i];
      if (n.find("kind")->as_string() == "managed") {
        if (name_of(n) == P + "RunCallback" && trampoline && entry) with_native_between += samples_of(*path.back());
        break;
      }
      trampoline |= name_of(n) == "umbra_native_trampoline";
      entry |= name_of(n) == "umbra_native_callback";
    }
  });
  ASSERT_GT(callback_samples, 50u);
  EXPECT_GE(double(with_native_between), 0.9 * double(callback_samples));
}

TEST(Sampled, SharesFollowCpuTime) {
  // 1 ms for 3 s: ~3,000 samples, so that +-5 points is several standard deviations of the sampling noise even when
  // a busy machine gives the sampler half its ticks (507 of 1,000 at 2 ms for 2 s, with four tests on two cores).
  ProfiledRun run = profile_native_mix("ratio", {"ratio", "3000"}, "1");
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  unsigned measured_permille = 0;
  ASSERT_EQ(std::sscanf(run.process.out.c_str(), "ratio done three_permille=%u", &measured_permille), 1)
      << run.process.out;
  const auto& roots = roots_of(main_thread(run.report));
  const JsonValue* three = find_anywhere(roots, P + "BusyThree");
  const JsonValue* one = find_anywhere(roots, P + "BusyOne");
  ASSERT_NE(three, nullptr);
  ASSERT_NE(one, nullptr);
  double share = 100.0 * double(samples_of(*three)) / double(samples_of(*three) + samples_of(*one));
  // Against the share the program measured, which a busy machine's preemptions move away from 75%.
  EXPECT_NEAR(share, measured_permille / 10.0, 5.0) << samples_of(*three) << " vs " << samples_of(*one);
}

TEST(Sampled, ThreadChurnAtOneMillisecond) {
  const auto started = std::chrono::steady_clock::now();
  ProfiledRun run = profile_native_mix("churn", {"churn", "5000", "1"}, "1");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  EXPECT_EQ(run.process.out, "churn 5000\n");
  const JsonValue* stats = run.report.find("stats");
  EXPECT_GE(stats->find("threads_created")->as_uint(), 5000u);
  EXPECT_GE(stats->find("threads_destroyed")->as_uint(), 5000u);
  // Every sample taken is in the report, on the thread it was taken on.
  uint64_t reported = 0;
  int churn_threads = 0;
  for (const auto& t : threads_of(run.report)) {
    for (const auto& r : roots_of(t)) reported += samples_of(r);
    if (find_anywhere(roots_of(t), P + "ChurnBody")) {
      ++churn_threads;
      EXPECT_TRUE(t.find("exited")->as_bool());
    }
  }
  const JsonValue* sampler = stats->find("sampler");
  EXPECT_EQ(reported, sampler->find("samples")->as_uint());
  EXPECT_EQ(threads_of(run.report).size(), stats->find("threads_reported")->as_uint());
  EXPECT_GE(churn_threads, 5);  // short-lived threads are caught in their body only now and then
  // 5,000 thread ends never hold the sampler up: it keeps ticking at 1 kHz, 300 a second at the least (the whole
  // run, start-up included, as the test timed it).
  EXPECT_GE(double(sampler->find("ticks")->as_uint()), 300 * seconds) << seconds << " s";
}

// The stacks of `thread` whose samples end outside `name`, innermost frames last, with their self samples: what a
// failed expectation about `name` shows.
std::string stacks_outside(const JsonValue& thread, const std::string& name) {
  std::string out;
  for_each_path(thread, [&](const std::vector<const JsonValue*>& path) {
    const uint64_t self = path.back()->find("self_samples")->as_uint();
    if (self == 0) return;
    for (const JsonValue* n : path)
      if (name_of(*n) == name) return;
    out += "\n  " + std::to_string(self) + ":";
    for (size_t i = path.size() > 8 ? path.size() - 8 : 0; i < path.size(); ++i) out += " > " + name_of(*path[i]);
  });
  return out;
}

TEST(Sampled, BlockedThreadsNeverStallTheSamplerAndKeepTheirNativeFrames) {
  ProfiledRun run = profile_native_mix("blocked", {"blocked"});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  const JsonValue* sleeper = thread_named(run.report, "native-sleeper");
  ASSERT_NE(sleeper, nullptr);
  EXPECT_GT(sleeper->find("native_samples")->as_uint(), 50u);
  const JsonValue* sleeping = find_anywhere(roots_of(*sleeper), P + "SleepInNative");
  ASSERT_NE(sleeping, nullptr);
  const JsonValue* sleep = find_anywhere(children_of(*sleeping), "umbra_native_sleep");
  ASSERT_NE(sleep, nullptr) << "the sleeper's samples:" << stacks_outside(*sleeper, "umbra_native_sleep")
                            << "\nthe sampler's drops: " << nonzero_drops(run.report);
  EXPECT_EQ(sleep->find("kind")->as_string(), "native");
  // The sleeper never reaches a safe point, yet every tick completes: ~250 ticks of 10 ms in 2.5 s.
  const JsonValue* sampler = run.report.find("stats")->find("sampler");
  EXPECT_GT(sampler->find("ticks")->as_uint(), 100u);
  // It uses no CPU time while it sleeps, so after the first walk its stack is counted again, not walked again:
  // the samples of the sleep alone would be enough.
  EXPECT_GE(sampler->find("unchanged_samples")->as_uint(), samples_of(*sleeping) / 2);
  // The sleep's samples show the native function it sleeps in (the thread's start-up, before it, may be
  // slow and elsewhere on a loaded machine).
  EXPECT_GT(samples_of(*sleeping), 100u);
  EXPECT_GE(double(samples_of(*sleep)), 0.9 * double(samples_of(*sleeping)))
      << samples_of(*sleep) << " of " << samples_of(*sleeping) << "; the sleeper's samples elsewhere:"
      << stacks_outside(*sleeper, "umbra_native_sleep");
  // And none of them lost its managed frames: the first call, umbra_native_sleep(0), returns at once, so the
  // native function without SleepInNative above it is a sleep's sample that lost them.
  uint64_t without_caller = 0;
  for_each_path(*sleeper, [&](const std::vector<const JsonValue*>& path) {
    if (name_of(*path.back()) != "umbra_native_sleep") return;
    for (const JsonValue* n : path)
      if (name_of(*n) == P + "SleepInNative") return;
    without_caller += samples_of(*path.back());
  });
  EXPECT_LE(without_caller, samples_of(*sleeping) / 20) << "the sleeper's samples outside SleepInNative:"
                                                        << stacks_outside(*sleeper, P + "SleepInNative");

  // Meanwhile the main thread waits in Thread.Join, precompiled framework code whose native transition the walk
  // places a few bytes before the native call's return address: the runtime's wait frames must still show above it.
  uint64_t in_join = 0, native_above_join = 0;
  for_each_path(main_thread(run.report), [&](const std::vector<const JsonValue*>& path) {
    const JsonValue& join = *path.back();
    if (name_of(join) != "System.Threading.Thread.Join") return;
    bool innermost = true;
    for (const auto& c : children_of(join)) innermost &= name_of(c) != name_of(join);
    if (!innermost) return;
    in_join += samples_of(join);
    for (const auto& c : children_of(join))
      if (c.find("kind")->as_string() == "native") native_above_join += samples_of(c);
  });
  EXPECT_GT(in_join, 30u);
  const uint64_t join_with_top = in_join - std::min(lost_native_tops(run.report), in_join);
  EXPECT_GE(double(native_above_join), 0.9 * double(join_with_top)) << native_above_join << " of " << in_join;
}

TEST(Sampled, KnownCountsProgramIsUnchanged) {
  std::string dir = scratch_dir("sampled_known_counts");
  ProcessResult plain = run_process(app_command("KnownCounts"));
  ProcessResult r = run_process(with_app(
      {launcher_path(), "run", "--mode", "sampled", "--interval-ms", "1", "-o", dir + "/r", "--"}, "KnownCounts"));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, plain.out);
  EXPECT_EQ(load_report(dir + "/r.json").find("mode")->as_string(), "sampled");
}

}  // namespace
}  // namespace umbra::testing
