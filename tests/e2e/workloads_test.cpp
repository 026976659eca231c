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
  std::string dir;  // where the reports are: r.json, r.txt
};

Profiled profile(const std::string& mode, const std::vector<std::string>& workload, const char* interval_ms = "1") {
  std::string dir = scratch_dir("workloads_" + mode + "_" + workload[0]);
  std::vector<std::string> argv = with_app(
      {launcher_path(), "run", "--mode", mode, "--interval-ms", interval_ms, "-o", dir + "/r", "--"}, "Workloads");
  argv.insert(argv.end(), workload.begin(), workload.end());
  Profiled run;
  run.dir = dir;
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
  if (!shadow()) {
    // One round runs its tasks in a few milliseconds, a window a busy machine's ticks can miss: 200 rounds give the
    // state machines on the thread-pool threads about 100 ms.
    Profiled run = profile(GetParam(), {"async", "200"});
    EXPECT_EQ(run.result.out, "async leaves=40000\n");
    EXPECT_GT(samples_under(run.report, "Workloads.Program+<Chain>d__3.MoveNext"), 0u);
    return;
  }
  Profiled run = profile(GetParam(), {"async"});
  EXPECT_EQ(run.result.out, "async leaves=200\n");
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

// A stack deeper than a capture holds at first (256 frames) is asked for again at once with room for all of it:
// every sample at the bottom of a 3,000-deep recursion keeps its roots, the thread's lambda above the recursion.
// (A sample in the spin's prologue or epilogue may lack one Recurse frame: a frameless leaf's caller.)
TEST_P(Workloads, DeepStacksAreSampledWhole) {
  constexpr size_t kDepth = 3000;
  Profiled run = profile(GetParam(), {"deep", std::to_string(kDepth)});
  EXPECT_EQ(run.result.out, "deep reached=" + std::to_string(kDepth) + "\n");
  run_on_large_stack([&] {
    uint64_t at_bottom = 0, whole = 0;
    std::string cut;  // the paths that are not whole: their samples, recursions and outermost frames
    for (const auto& thread : threads_of(run.report))
      for_each_path(thread, [&](const std::vector<const JsonValue*>& path) {
        if (name_of(*path.back()) != "Workloads.Program.SpinAtTheBottom") return;
        size_t recursions = 0;
        bool rooted = false;
        for (const JsonValue* node : path) {
          recursions += name_of(*node) == "Workloads.Program.Recurse";
          rooted |= name_of(*node).find("<RunDeep>b__0") != std::string::npos;
        }
        at_bottom += samples_of(*path.back());
        if (rooted && recursions >= kDepth) {
          whole += samples_of(*path.back());
          return;
        }
        cut += "\n  " + std::to_string(samples_of(*path.back())) + " with " + std::to_string(recursions) + ":";
        for (size_t i = 0; i < std::min<size_t>(path.size(), 4); ++i) cut += " > " + name_of(*path[i]);
      });
    EXPECT_GT(at_bottom, 10u);  // about 250 in the spin's 300 ms alone, 20 on a machine loaded 7 times over
    EXPECT_EQ(whole, at_bottom) << cut << "\nthe sampler: " << run.report.find("stats")->find("sampler")->dump();
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
  EXPECT_GE(threads_of(run.report).size(), 1000u)
      << "threads created " << run.report.find("stats")->find("threads_created")->dump() << "; the sampler: "
      << run.report.find("stats")->find("sampler")->dump();
  if (!shadow()) return;
  EXPECT_EQ(calls_in_all_threads(run.report, "Workloads.Program.Work"), 10000u);
  size_t working = 0;
  for (const auto& thread : threads_of(run.report))
    working += total_calls(roots_of(thread), "Workloads.Program.Work") == 10;
  EXPECT_EQ(working, 1000u);
}

// A hot method and a thread blocked in Monitor.Wait, side by side. Weighed by CPU, the hot method has (nearly) all
// of its thread's samples and the waiter (nearly) none of the process's; weighed by wall time, the waiter spends its
// samples waiting. The text report's thread lines say samples, those on a CPU, and CPU time.
TEST_P(Workloads, CpuTimeApartFromWaiting) {
  Profiled run = profile(GetParam(), {"cpuwait", "3000"});
  EXPECT_EQ(run.result.out, "cpuwait done\n");
  const JsonValue* waiter = thread_named(run.report, "waiter");
  ASSERT_NE(waiter, nullptr);
  const JsonValue* main = nullptr;
  uint64_t all_cpu = 0;
  for (const auto& thread : threads_of(run.report)) {
    all_cpu += thread_cpu_samples_of(thread);
    if (find_anywhere(roots_of(thread), "Workloads.Program.Crunch")) main = &thread;
  }
  ASSERT_NE(main, nullptr);
  // Against the work's own CPU samples (RunCpuWait: start the waiter, Crunch, release it), not the whole thread's:
  // the runtime's start-up before Main, all JIT-compiled in shadow mode, took a tenth of the thread's CPU samples
  // on a loaded machine.
  uint64_t crunch_cpu = 0, crunch_wall = 0, work_cpu = 0;
  for_each_path(*main, [&](const std::vector<const JsonValue*>& path) {
    if (name_of(*path.back()) == "Workloads.Program.RunCpuWait") work_cpu += cpu_samples_of(*path.back());
    if (name_of(*path.back()) != "Workloads.Program.Crunch") return;
    crunch_cpu += cpu_samples_of(*path.back());
    crunch_wall += samples_of(*path.back());
  });
  const uint64_t main_cpu = thread_cpu_samples_of(*main), waiter_cpu = thread_cpu_samples_of(*waiter);
  std::printf("[ %s ] Crunch %lu CPU samples of the work's %lu and its thread's %lu (%lu wall); waiter %lu of the "
              "process's %lu\n",
              GetParam(), crunch_cpu, work_cpu, main_cpu, crunch_wall, waiter_cpu, all_cpu);
  EXPECT_GT(crunch_cpu, 100u);
  EXPECT_GE(work_cpu, crunch_cpu) << "Crunch is called from RunCpuWait";
  EXPECT_GE(double(crunch_cpu), 0.9 * double(work_cpu));
  EXPECT_LT(double(waiter_cpu), 0.05 * double(all_cpu));

  // The waiter blocks in its two monitor calls: mostly in Wait, but PulseAll can block too (glibc's
  // pthread_cond_signal waits for the waiters it woke before to leave; under a full test run that was a third of the
  // waiter's samples once).
  const uint64_t waiter_wall = thread_samples_of(*waiter);
  const uint64_t waiting = outermost_samples(*waiter, [](const std::string& n) {
    return n == "System.Threading.Monitor.Wait" || n == "System.Threading.Monitor.PulseAll";
  });
  EXPECT_GT(waiter_wall, 100u) << "the wall view shows the waiter";
  EXPECT_GE(double(waiting), 0.9 * double(waiter_wall))
      << waiting << " of " << waiter_wall << " in Monitor.Wait and PulseAll";
  ASSERT_TRUE(main->find("cpu_ns")->is_number());
  EXPECT_GT(main->find("cpu_ns")->as_uint(), 10 * waiter->find("cpu_ns")->as_uint());

  std::string text = read_file(run.dir + "/r.txt");
  size_t line_at = text.find("=== thread \"waiter\"");
  ASSERT_NE(line_at, std::string::npos) << text.substr(0, 3000);
  std::string line = text.substr(line_at, text.find('\n', line_at) - line_at);
  EXPECT_NE(line.find(" samples, "), std::string::npos) << line;
  EXPECT_NE(line.find(" on CPU  CPU "), std::string::npos) << line;
  EXPECT_EQ(line.find(" calls ") != std::string::npos, shadow()) << line;  // sampled mode measures no calls
}

// A thread that computes for 2 ms and sleeps for 3, over and over: the share of its samples in the computing method,
// and of its samples taken on a CPU, is the share of its time the program measured computing. The sampler must tick
// on time while that thread computes on the CPU it wakes on (util/prompt_wakeups.h): late, it samples the thread
// where it goes to sleep (23% of the samples in Burn against 39% of the time, before).
TEST_P(Workloads, SamplesFollowShortBurstsOfWork) {
  Profiled run = profile(GetParam(), {"dutycycle", "4000"}, "5");
  double burn_ms = 0, sleep_ms = 0, wait_ms = 0;
  ASSERT_EQ(std::sscanf(run.result.out.c_str(), "dutycycle burn_ms=%lf sleep_ms=%lf wait_ms=%lf", &burn_ms,
                        &sleep_ms, &wait_ms),
            3)
      << run.result.out;
  const JsonValue* cycler = thread_named(run.report, "cycler");
  ASSERT_NE(cycler, nullptr);
  const uint64_t burn =
      outermost_samples(*cycler, [](const std::string& n) { return n == "Workloads.Program.Burn"; });
  const uint64_t samples = thread_samples_of(*cycler), cpu = thread_cpu_samples_of(*cycler);
  const double measured = burn_ms / (burn_ms + sleep_ms);
  const double in_burn = double(burn) / double(samples), on_cpu = double(cpu) / double(samples);
  // Ready to run and waiting for a CPU counts as on a CPU (the R state), also just after the sleep, which the
  // program times as sleeping: that wait, as the kernel counted it, may add to the share on a CPU.
  const double waiting = wait_ms < 0 ? 0.12 : wait_ms / (burn_ms + sleep_ms);  // unknown: as much as seen
  std::printf("[ %s ] cycler: %lu of %lu samples in Burn (%.2f), %lu on a CPU (%.2f); computing %.0f of %.0f ms "
              "(%.2f), waiting for a CPU %.0f ms (%.2f)\n",
              GetParam(), burn, samples, in_burn, cpu, on_cpu, burn_ms, burn_ms + sleep_ms, measured, wait_ms,
              waiting);
  ASSERT_GT(samples, 300u);
  const char* walker = std::getenv("UMBRA_WALKER");
  if (walker != nullptr && std::string(walker) == "suspend")
    GTEST_SKIP() << "the suspending walker samples where the runtime stops the thread, not where the tick finds it";
  // Where the cycler waits for a CPU, so does the sampler, and more while the cycler computes than while it sleeps:
  // with three busy threads beside it on two cores, 0.36 in Burn against 0.44 computing (0.20 waiting).
  EXPECT_GE(in_burn, measured - 0.08 - waiting);
  EXPECT_LE(in_burn, measured + 0.08);
  EXPECT_GE(on_cpu, measured - 0.08);
  EXPECT_LE(on_cpu, measured + waiting + 0.08);
}

// NullReferenceExceptions raised as fast as four threads can: the runtime handles each SIGSEGV on the thread's small
// alternate signal stack, where a sampling signal could overflow it and the kernel would kill the program. The
// program ends as it would without umbra, and every faulting thread is still sampled after its first fault.
TEST_P(Workloads, HardwareExceptionsOnFourThreads) {
  Profiled run = profile(GetParam(), {"faults", "3000"});
  uint64_t caught = 0;
  ASSERT_EQ(std::sscanf(run.result.out.c_str(), "faults caught=%lu", &caught), 1) << run.result.out;
  EXPECT_GT(caught, 4000u) << "each thread faults many times a millisecond";
  size_t faulting_threads = 0;
  uint64_t fault_calls = 0;
  for (const auto& thread : threads_of(run.report)) {
    uint64_t samples = 0;
    for_each_path(thread, [&](const std::vector<const JsonValue*>& path) {
      const JsonValue& last = *path.back();
      if (name_of(last).find("<RunFaults>b__") != std::string::npos) samples += samples_of(last);
      if (name_of(last) == "Workloads.Program.Fault") fault_calls += calls_of(last);
    });
    if (samples == 0) continue;
    ++faulting_threads;
    EXPECT_GT(samples, 100u) << "a thread that stops answering the sampler after its first fault";
  }
  EXPECT_EQ(faulting_threads, 4u);
  if (shadow()) {
    EXPECT_EQ(fault_calls, caught) << "each call of Fault raised one exception, caught once";
  }
}

INSTANTIATE_TEST_SUITE_P(BothModes, Workloads, ::testing::Values("shadow", "sampled"),
                         [](const ::testing::TestParamInfo<const char*>& info) { return info.param; });

}  // namespace
}  // namespace umbra::testing
