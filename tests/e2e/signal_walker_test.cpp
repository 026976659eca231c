// Sampled mode's walker by signal on the real runtime: a method is sampled where it runs, not only at the runtime's
// safe points; its walks agree with the runtime's own walks of the same moment; the program's system calls never
// fail because of its signals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "e2e_env.h"
#include "process.h"
#include "report_query.h"
#include "util/large_stack.h"

namespace umbra::testing {
namespace {

const std::string W = "Workloads.Program.";

uint64_t self_samples_named(const JsonValue& report, const std::string& name) {
  uint64_t sum = 0;
  for_each_node(report, [&](const JsonValue& n) {
    if (name_of(n) == name) sum += n.find("self_samples")->as_uint();
  });
  return sum;
}

struct BiasRun {
  unsigned measured_permille = 0;  // LoopFree's share of the time, as the program measured it
  uint64_t loop_free = 0, looping = 0;  // their self samples
  uint64_t run_bias = 0;                // samples of RunBias and everything under it
  std::string text;
  double permille() const { return 1000.0 * double(loop_free) / double(loop_free + looping); }
};

// The bias workload: LoopFree, which has no safe point, and Looping, which has, called in turn.
BiasRun profile_bias(const std::string& name, const std::vector<std::string>& options) {
  std::string dir = scratch_dir("walker_bias_" + name);
  std::vector<std::string> before = {launcher_path(), "run"};
  before.insert(before.end(), options.begin(), options.end());
  before.insert(before.end(), {"-o", dir + "/r", "--"});
  ProcessResult r = run_process(with_app(before, "Workloads", {"bias", "5000"}));
  BiasRun run;
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(std::sscanf(r.out.c_str(), "bias loop_free_permille=%u", &run.measured_permille), 1) << r.out;
  JsonValue report = load_report(dir + "/r.json");
  run.loop_free = self_samples_named(report, W + "LoopFree");
  run.looping = self_samples_named(report, W + "Looping");
  for (const JsonValue& thread : threads_of(report))
    run.run_bias += outermost_samples(thread, [&](const std::string& name) { return name == W + "RunBias"; });
  run.text = read_file(dir + "/r.txt");
  return run;
}

// The self-sample split of the two methods is the split the program measured, within 5 points, in sampled mode
// with the walker by signal and in shadow mode. The program leaves out what the calls themselves cost: in shadow
// mode that is mostly the hooks, sampled as umbra's own native frames or in RunBias, never as LoopFree's self time
// (while the program's measure included them, LoopFree's share of the samples came out up to 95 points below it).
// The suspending walker stops the thread only at a safe point, never inside LoopFree, so LoopFree gets almost none
// of its samples (they land in the runtime's GC poll in RunBias): the test tells the two apart.
TEST(SignalWalker, NoSafePointBias) {
  // 2 ms ticks for 5 s: about 1,700 samples in the two methods, so that 5 points are several standard deviations
  // (on a loaded machine a third of the ticks can find the thread not yet scheduled to answer).
  BiasRun sampled = profile_bias("sampled", {"--mode", "sampled", "--walker", "signal", "--interval-ms", "2"});
  ASSERT_GT(sampled.loop_free + sampled.looping, 500u) << sampled.text;
  EXPECT_NEAR(sampled.permille(), double(sampled.measured_permille), 50.0)
      << sampled.loop_free << " in LoopFree, " << sampled.looping << " in Looping\n" << sampled.text;

  BiasRun shadow = profile_bias("shadow", {"--mode", "shadow", "--interval-ms", "2"});
  ASSERT_GT(shadow.loop_free + shadow.looping, 500u) << shadow.text;
  EXPECT_NEAR(shadow.permille(), double(shadow.measured_permille), 50.0)
      << shadow.loop_free << " in LoopFree, " << shadow.looping << " in Looping\n" << shadow.text;

  BiasRun suspended = profile_bias("suspend", {"--mode", "sampled", "--walker", "suspend"});
  ASSERT_GT(suspended.run_bias, 150u) << suspended.text;
  EXPECT_LT(double(suspended.loop_free), double(suspended.run_bias) * suspended.measured_permille / 1000 / 2)
      << suspended.loop_free << " in LoopFree of " << suspended.run_bias << " in RunBias\n" << suspended.text;
}

// Checked at every tick (--verify) against DoStackSnapshot's walk of the same stopped moment: every walk that
// differs is counted under a named difference, and on a CPU-bound program with calls nearly all managed frames
// agree. (Programs whose threads stop in the GC agree less: see the README.)
TEST(SignalWalker, AgreesWithTheRuntimesOwnWalks) {
  std::string dir = scratch_dir("walker_checked");
  for (const char* workload : {"split", "async"}) {
    std::vector<std::string> args = {workload};
    // One round of async work ends in a few ticks: 200 rounds give it more than ten.
    args.push_back(std::string(workload) == "split" ? "1500" : "200");
    ProcessResult r = run_process(with_app({launcher_path(), "run", "--mode", "sampled", "--walker", "signal",
                                            "--verify", "-o", dir + "/" + workload, "--"},
                                           "Workloads", args));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    JsonValue report = load_report(dir + "/" + workload + ".json");
    const JsonValue& sampler = *report.find("stats")->find("sampler");
    EXPECT_EQ(sampler.find("walker")->as_string(), "signal");
    uint64_t walks = sampler.find("walks_checked")->as_uint(), agreed = sampler.find("walks_agreed")->as_uint();
    uint64_t frames = sampler.find("walk_frames_checked")->as_uint();
    uint64_t frames_agreed = sampler.find("walk_frames_agreed")->as_uint();
    std::string text = read_file(dir + "/" + workload + ".txt");
    EXPECT_GT(walks, 2u) << workload << "\n" << text;
    uint64_t differing = 0;
    for (const auto& [name, count] : sampler.find("walk_differences")->as_object()) differing += count.as_uint();
    EXPECT_EQ(agreed + differing, walks) << workload;
    EXPECT_NE(text.find("stacks by signal checked against the runtime's walks: "), std::string::npos) << text;
    EXPECT_NE(r.err.find("umbra: verify: stacks by signal checked against the runtime's walks: "), std::string::npos)
        << r.err;
    // The same figures per thread, in the report and, for each thread whose walks differed, in --verify's lines.
    uint64_t thread_frames = 0, thread_frames_agreed = 0;
    for (const JsonValue& thread : threads_of(report)) {
      const JsonValue* checked = thread.find("walk_frames_checked");
      if (checked == nullptr) continue;
      const uint64_t in_thread = checked->as_uint(), agreed_in_thread = thread.find("walk_frames_agreed")->as_uint();
      thread_frames += in_thread;
      thread_frames_agreed += agreed_in_thread;
      const std::string line = "os tid " + std::to_string(thread.find("os_tid")->as_uint()) + ": ";
      EXPECT_EQ(r.err.find(line) != std::string::npos, agreed_in_thread < in_thread) << line << "\n" << r.err;
    }
    // A thread checked but with no sample of its own (one that ended at once) is not in the report: nearly all.
    EXPECT_LE(thread_frames, frames) << workload;
    EXPECT_GE(double(thread_frames), 0.9 * double(frames)) << workload;
    EXPECT_LE(thread_frames_agreed, frames_agreed) << workload;
    if (std::string(workload) != "split") continue;
    EXPECT_GT(walks, 100u) << text;
    // Its busy threads are often stopped inside the runtime's activation handler, with the signal blocked until
    // the resume (half of the walks here): they are recognised and not waited for, where the whole program would
    // stay stopped for the full wait and the thread would be counted as not answering in time.
    const JsonValue& differences = *sampler.find("walk_differences");
    EXPECT_GT(differences.find("signal_blocked")->as_uint(), 0u) << text;
    EXPECT_LT(differences.find("no_answer")->as_uint(), differences.find("signal_blocked")->as_uint()) << text;
    // Measured 99.0-100% in runs of this program; 97% guards against a chain that loses frames (an on-stack
    // replaced method losing its caller gave 95%) without failing on a run's few unresolved new methods.
    EXPECT_GE(double(frames_agreed), 0.97 * double(frames)) << text;
    // Walks that agree keep their threads on the walker by signal.
    EXPECT_EQ(sampler.find("threads_sampled_by_snapshot")->as_uint(), 0u) << text;
  }
}

// A stack deeper than the runtime's walk is kept (4,096 frames) and than a capture holds at first (256): the stacks
// by signal are taken whole (a first one cut is asked for again with room for all), and compared with the runtime's
// walk on the frames that walk kept. One check may still find a cut stack: a thread that went deep between the
// tick's stacks and the check's.
TEST(SignalWalker, DeepStacksAgreeWithTheRuntimesWalks) {
  std::string dir = scratch_dir("walker_checked_deep");
  ProcessResult r = run_process(with_app({launcher_path(), "run", "--mode", "sampled", "--walker", "signal",
                                          "--verify", "--interval-ms", "2", "-o", dir + "/r", "--"},
                                         "Workloads", {"deep", "5000"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  JsonValue report;
  run_on_large_stack([&] { report = load_report(dir + "/r.json"); });
  const JsonValue& sampler = *report.find("stats")->find("sampler");
  const JsonValue& differences = *sampler.find("walk_differences");
  const std::string stats = sampler.dump();
  EXPECT_GT(sampler.find("walks_checked")->as_uint(), 20u) << stats;
  EXPECT_EQ(differences.find("extra_frames")->as_uint(), 0u) << stats;
  EXPECT_LE(differences.find("truncated")->as_uint(), 1u) << stats;
  EXPECT_GE(double(sampler.find("walk_frames_agreed")->as_uint()),
            0.99 * double(sampler.find("walk_frames_checked")->as_uint())) << stats;
}

// A stack deeper than a capture ever holds (8,192 frames) stops short of its thread's start: its samples are kept,
// under the marker root "[stack incomplete]", counted as truncated in the stats and said in the text report's header.
TEST(SignalWalker, AStackCutShortOfItsStartIsKeptUnderTheMarkerAndCounted) {
  std::string dir = scratch_dir("walker_incomplete");
  ProcessResult r = run_process(with_app({launcher_path(), "run", "--mode", "sampled", "--walker", "signal", "-o",
                                          dir + "/r", "--"},
                                         "Workloads", {"deep", "10000"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_NE(r.out.find("deep reached=10000"), std::string::npos) << r.out;
  JsonValue report;
  run_on_large_stack([&] { report = load_report(dir + "/r.json"); });
  uint64_t marked = 0, recursion_under_marker = 0;
  for (const auto& thread : threads_of(report)) {
    for (const auto& root : roots_of(thread)) {
      if (name_of(root) != "[stack incomplete]") continue;
      EXPECT_EQ(root.find("kind")->as_string(), "marker");
      marked += samples_of(root);
      for (const auto& child : children_of(root))
        if (name_of(child) == W + "Recurse") recursion_under_marker += samples_of(child);
    }
  }
  const JsonValue& sampler = *report.find("stats")->find("sampler");
  ASSERT_NE(sampler.find("incomplete_stacks"), nullptr) << sampler.dump();
  const JsonValue& incomplete = *sampler.find("incomplete_stacks");
  uint64_t counted = 0;
  for (const auto& [name, count] : incomplete.as_object()) counted += count.as_uint();
  EXPECT_GT(recursion_under_marker, 5u) << sampler.dump();  // the bottom spins 300 ms there
  EXPECT_GT(incomplete.find("truncated")->as_uint(), 5u) << sampler.dump();
  EXPECT_EQ(marked, counted) << sampler.dump();
  std::string text = read_file(dir + "/r.txt");
  const size_t line = text.find("stacks incomplete: ");
  ASSERT_NE(line, std::string::npos) << text.substr(0, 2000);
  const std::string said = text.substr(line, text.find('\n', line) - line);
  EXPECT_NE(said.find(" samples under [stack incomplete]"), std::string::npos) << said;
  EXPECT_NE(said.find(" truncated="), std::string::npos) << said;
}

// Threads taking NullReferenceExceptions in a loop (the runtime raises them from a SIGSEGV and dispatches them in
// managed code above the faulting frame): the stacks by signal agree with the runtime's walks, which leave the
// dispatch out, and the faulting method, whose first instruction faulted, is itself and not the method before it.
TEST(SignalWalker, StacksThroughExceptionDispatchAgreeWithTheRuntimesWalks) {
  std::string dir = scratch_dir("walker_checked_faults");
  ProcessResult r = run_process(with_app({launcher_path(), "run", "--mode", "sampled", "--walker", "signal",
                                          "--verify", "-o", dir + "/r", "--"},
                                         "Workloads", {"faults", "1000"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  JsonValue report = load_report(dir + "/r.json");
  const JsonValue& sampler = *report.find("stats")->find("sampler");
  const std::string stats = sampler.dump();
  EXPECT_GT(sampler.find("walks_checked")->as_uint(), 50u) << stats;
  // .NET 8 and 9 dispatch in the runtime's native code; there the threads' loop, replaced on stack, shows twice in
  // most walks by signal (extra frames, 237-337 of about 450: the README's "What differs").
  if (test_runtime() == "net10") {
    EXPECT_EQ(sampler.find("walk_differences")->find("extra_frames")->as_uint(), 0u) << stats;
  }
  EXPECT_GE(double(sampler.find("walk_frames_agreed")->as_uint()),
            0.99 * double(sampler.find("walk_frames_checked")->as_uint())) << stats;
  EXPECT_EQ(sampler.find("threads_sampled_by_snapshot")->as_uint(), 0u) << stats;
}

// Two busy threads answer each tick at the same moment, and both unwind: the one that finds the loader's lock held
// by the other handler waits for it (it is given back without waiting for anyone) instead of declining its sample
// as loader_busy (5-7% of the answers on two cores before).
TEST(SignalWalker, ThreadsAnsweringAtOnceAreAllSampled) {
  std::string dir = scratch_dir("walker_at_once");
  ProcessResult r = run_process(with_app(
      {launcher_path(), "run", "--mode", "sampled", "--interval-ms", "2", "-o", dir + "/r", "--"}, "Workloads",
      {"split", "3000"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  JsonValue report = load_report(dir + "/r.json");
  const JsonValue& sampler = *report.find("stats")->find("sampler");
  const uint64_t samples = sampler.find("samples")->as_uint();
  const uint64_t busy = sampler.find("drops")->find("loader_busy")->as_uint();
  std::printf("[ split ] %lu samples, %lu declined as loader_busy\n", samples, busy);
  // About 2,400 samples alone, 1,100-1,300 beside another profiled program on two cores; the library before
  // declined 6.7% of them.
  EXPECT_GT(samples, 500u);
  EXPECT_LE(double(busy), 0.01 * double(samples));
}

// Shadow mode reads each thread's shadow node at a signal and takes the native frames on top of it: a P/Invoke
// into a CPU-heavy native function shows that function above its exact-counted managed caller, with its samples,
// instead of all of them as the caller's own.
TEST(SignalWalker, ShadowModeSamplesShowTheNativeCodeOnTop) {
  std::string dir = scratch_dir("walker_shadow_native_top");
  ProcessResult r = run_process(with_app({launcher_path(), "run", "--mode", "shadow", "-o", dir + "/r", "--"},
                                         "NativeMix", {"spin"}),
                                {{"UMBRA_TEST_NATIVE_LIB", native_test_library()}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "spin True\n");
  JsonValue report = load_report(dir + "/r.json");
  const JsonValue* spin = nullptr;
  for (const JsonValue& thread : threads_of(report))
    if (const JsonValue* s = find_anywhere(roots_of(thread), "NativeMix.Program.Spin")) spin = s;
  ASSERT_NE(spin, nullptr);
  EXPECT_EQ(calls_of(*spin), 1u);
  const JsonValue* native = nullptr;
  for (const JsonValue& child : children_of(*spin))
    if (name_of(child) == "umbra_native_spin") native = &child;
  std::string text = read_file(dir + "/r.txt");
  ASSERT_NE(native, nullptr) << text;
  EXPECT_EQ(native->find("kind")->as_string(), "native");
  // A thread that does not answer the tick's signal in time (on a busy machine, waiting for a CPU) is sampled on
  // its shadow node alone, counted as such: 33 of 217 with two tests on two cores.
  const uint64_t shadow_only = report.find("stats")->find("sampler")->find("shadow_only_samples")->as_uint();
  const uint64_t answered = samples_of(*spin) - std::min(shadow_only, samples_of(*spin));
  EXPECT_GT(answered, 50u) << text;  // about 150 in 1.5 s at 100 Hz
  EXPECT_GE(double(samples_of(*native)), 0.9 * double(answered)) << text;
}

// A thread that falls back to snapshot walks (the rule: WalkComparison.AThreadFallsBackAfterThreeChecksInARow...)
// is marked in the report, counted in the stats and the header, and keeps being sampled; the others stay on the
// walker by signal. The sample app, checked at every tick, is the program whose walks have differed most (1-3
// threads fell back in each of 5 runs before the frameless methods' callers were found back; none since, mostly).
TEST(SignalWalker, ThreadsSampledFromSnapshotWalksAreMarkedAndCounted) {
  if (test_runtime() != "net10") GTEST_SKIP() << "the sample app is published for the SDK's runtime only";
  std::string dir = scratch_dir("walker_fallback");
  ProcessResult plain = run_process(app_command("OrderService"));
  ProcessResult r = run_process(with_app({launcher_path(), "run", "--mode", "sampled", "--walker", "signal",
                                          "--verify", "-o", dir + "/r", "--"},
                                         "OrderService"));
  ASSERT_EQ(r.exit_code, plain.exit_code) << r.err;
  EXPECT_EQ(r.out, plain.out);
  JsonValue report = load_report(dir + "/r.json");
  const JsonValue& sampler = *report.find("stats")->find("sampler");
  std::string text = read_file(dir + "/r.txt");
  uint64_t fell_back = sampler.find("threads_sampled_by_snapshot")->as_uint();
  uint64_t marked = 0, marked_samples = 0;
  for (const JsonValue& thread : threads_of(report)) {
    const JsonValue* by = thread.find("sampled_by_snapshot");
    if (by == nullptr || !by->as_bool()) continue;
    ++marked;
    marked_samples += thread_samples_of(thread);
  }
  EXPECT_EQ(marked, fell_back) << text;
  EXPECT_LT(marked, threads_of(report).size()) << text;
  bool said = text.find("threads whose stacks by signal kept differing sampled from snapshot walks instead") !=
              std::string::npos;
  EXPECT_EQ(said, fell_back > 0) << text.substr(0, 2000);
  EXPECT_EQ(text.find("(sampled from snapshot walks)") != std::string::npos, fell_back > 0) << text.substr(0, 2000);
  if (fell_back == 0) return;
  EXPECT_GT(sampler.find("samples_by_snapshot")->as_uint(), 0u) << text;
  EXPECT_GT(marked_samples, 0u) << text;
}

// Native code that treats EINTR as an error, waiting in poll and nanosleep 1 ms at a time, sampled at 1 kHz: no
// wait fails, since a thread blocked in such a call is never signalled.
TEST(SignalWalker, NoSystemCallFailsWithEintr) {
  const std::vector<std::vector<std::string>> ways = {
      {"--mode", "sampled", "--walker", "signal"},  // a signal for each stack
      {"--mode", "sampled"},                        // a signal for each native top, then a suspension
      {"--mode", "shadow", "--hooks-for", "[NativeMix]*.StrictWaits"}};  // focused: stacks by signal
  for (size_t i = 0; i < ways.size(); ++i) {
    const auto& way = ways[i];
    std::string name = way[1] + (way.size() > 2 ? " " + way[2] + " " + way[3] : "");
    std::string dir = scratch_dir("walker_eintr_" + std::to_string(i));
    std::vector<std::string> before = {launcher_path(), "run", "--interval-ms", "1"};
    before.insert(before.end(), way.begin(), way.end());
    before.insert(before.end(), {"-o", dir + "/r", "--"});
    ProcessResult r = run_process(with_app(before, "NativeMix", {"eintr", "3000"}),
                                  {{"UMBRA_TEST_NATIVE_LIB", native_test_library()}});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "eintr failures=0\n") << name;
    JsonValue report = load_report(dir + "/r.json");
    const JsonValue* strict = thread_named(report, "strict-0");
    ASSERT_NE(strict, nullptr) << name;
    EXPECT_GT(thread_samples_of(*strict), 100u) << name << "\n" << read_file(dir + "/r.txt");
  }
}

// A thread that loads and unloads a library in a loop, sampled at 1 kHz: the handler never unwinds while the dynamic
// loader is changing its list of objects (dl_iterate_phdr, re-entered on that thread, would read it half-changed),
// says how often it declined, and the program runs as without a profiler. A minute by signal, as sampled mode takes
// its stacks; shadow mode's native tops come from the same handler.
TEST(SignalWalker, LoadingLibrariesInALoopIsNeverUnwoundHalfChanged) {
  // The loader's protocol is the C library's, not the runtime's: the older runtimes get 10 s, not the minute.
  const std::string minute = test_runtime() == "net10" ? "60000" : "10000";
  const std::vector<std::pair<std::vector<std::string>, std::string>> ways = {
      {{"--mode", "sampled", "--walker", "signal"}, minute}, {{"--mode", "shadow"}, "10000"}};
  for (size_t i = 0; i < ways.size(); ++i) {
    const auto& [way, ms] = ways[i];
    std::string dir = scratch_dir("walker_dlopen_" + std::to_string(i));
    std::vector<std::string> before = {launcher_path(), "run", "--interval-ms", "1"};
    before.insert(before.end(), way.begin(), way.end());
    before.insert(before.end(), {"-o", dir + "/r", "--"});
    ProcessResult r = run_process(with_app(before, "NativeMix", {"dlopen", ms}),
                                  {{"UMBRA_TEST_NATIVE_LIB", native_test_library()}});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "dlopen ok\n") << way[1];
    JsonValue report = load_report(dir + "/r.json");
    const JsonValue* loader = thread_named(report, "loader");
    ASSERT_NE(loader, nullptr) << way[1];
    std::string text = read_file(dir + "/r.txt");
    EXPECT_NE(find_anywhere(roots_of(*loader), "umbra_native_load_unload"), nullptr) << way[1] << "\n" << text;
    const JsonValue& drops = *report.find("stats")->find("sampler")->find("drops");
    EXPECT_GT(drops.find("loader_busy")->as_uint(), 0u) << way[1] << "\n" << text;
    // A library unloaded after the sampler last read the process's mappings can still be taken for code while a
    // stack is read: that read faults, and the fault ends the capture (once in about a minute of this loop).
    EXPECT_LE(drops.find("native_top_fault")->as_uint(), 5u) << way[1] << "\n" << text;
  }
}

}  // namespace
}  // namespace umbra::testing
