// Mixed stacks in the shapes programs make every day (NativeMix `shapes`): each callback's samples under its managed
// caller with the native frames between, and a native thread's work down to its native start. Sampled mode, the
// walker by signal (the default).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "e2e_env.h"
#include "process.h"
#include "report_query.h"

namespace umbra::testing {
namespace {

const std::string S = "NativeMix.Shapes.";

// The samples of every node named `callback` in `report`, and those whose path, from the callback down, has the
// native frames `between` (each named somewhere between it and its nearest managed ancestor) and that ancestor named
// `caller`.
struct Placed {
  uint64_t samples = 0;
  uint64_t under_caller = 0;
};

Placed placed(const JsonValue& report, const std::string& callback, const std::string& caller,
              const std::vector<std::string>& between) {
  Placed out;
  for (const auto& thread : threads_of(report)) {
    for_each_path(thread, [&](const std::vector<const JsonValue*>& path) {
      if (name_of(*path.back()) != callback) return;
      out.samples += samples_of(*path.back());
      std::vector<bool> seen(between.size(), false);
      for (size_t i = path.size() - 1; i-- > 0;) {
        const JsonValue& n = *path[i];
        if (n.find("kind")->as_string() == "managed") {
          if (name_of(n) == caller && std::find(seen.begin(), seen.end(), false) == seen.end())
            out.under_caller += samples_of(*path.back());
          return;
        }
        for (size_t b = 0; b < between.size(); ++b) seen[b] = seen[b] || name_of(n) == between[b];
      }
    });
  }
  return out;
}

// At least 20 samples of `callback`, and 95% of them under `caller` with the native frames `between`.
void expect_under_caller(const JsonValue& report, const std::string& callback, const std::string& caller,
                         const std::vector<std::string>& between) {
  Placed p = placed(report, callback, caller, between);
  ASSERT_GT(p.samples, 20u) << callback;
  EXPECT_GE(double(p.under_caller), 0.95 * double(p.samples))
      << callback << ": " << p.under_caller << " of " << p.samples;
}

class MixedShapes : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string dir = scratch_dir("mixed_shapes");
    process_ = new ProcessResult(run_process(
        with_app({launcher_path(), "run", "--mode", "sampled", "-o", dir + "/r", "--"}, "NativeMix",
                 {"shapes", "1500", "fnptr", "thread", "nofp", "keeprbp", "delegate", "crc", "slow", "compress"}),
        {{"UMBRA_TEST_NATIVE_LIB", native_test_library()}}));
    report_ = new JsonValue(load_report(dir + "/r.json"));
  }
  static void TearDownTestSuite() {
    delete process_;
    delete report_;
  }
  static ProcessResult* process_;
  static JsonValue* report_;
};
ProcessResult* MixedShapes::process_;
JsonValue* MixedShapes::report_;

TEST_F(MixedShapes, ProgramRanEveryShape) {
  ASSERT_EQ(process_->exit_code, 0) << process_->err;
  for (const char* shape : {"fnptr callbacks=", "thread entries=2", "nofp callbacks=", "keeprbp callbacks=",
                            "delegate callbacks=", "crc callbacks=", "slow callbacks=", "compress calls="})
    EXPECT_NE(process_->out.find(std::string("shape ") + shape), std::string::npos) << process_->out;
}

// libc's qsort (no frame pointers: RBP is an ordinary register there) calling an UnmanagedCallersOnly comparer,
// which the JIT compiles without a frame pointer of its own.
TEST_F(MixedShapes, QsortComparerByFunctionPointerUnderItsCaller) {
  expect_under_caller(*report_, S + "CompareFnPtr", S + "RunFnPtr", {"qsort_r"});
}

// The same comparer as a marshalled delegate (Marshal.GetFunctionPointerForDelegate): qsort calls the runtime's
// stub, which calls the delegate's method. Disabled until the assertion fits the shape: nearly all of each call's
// time is the stub's (its transitions), and stub frames are left out of stacks, so the tiny comparer gets a handful
// of samples in a 1.5 s phase (3 of 155 by signal, 1 with the suspending walker) and the stub's time shows as the
// time of qsort's own frames.
TEST_F(MixedShapes, DISABLED_QsortComparerByMarshalledDelegateUnderItsCaller) {
  expect_under_caller(*report_, S + "CompareDelegate", S + "RunDelegate", {"qsort_r"});
}

// A callback that calls native code again (zlib's crc32 on top of the comparer): its samples, most of them in crc32,
// under the comparer's caller with qsort between.
TEST_F(MixedShapes, CallbackThatCallsNativeCodeAgainUnderItsCaller) {
  expect_under_caller(*report_, S + "CompareCrc", S + "RunCrc", {"qsort_r"});
}

// Callbacks at a low frequency: a few comparisons, each 20 ms long.
TEST_F(MixedShapes, SlowCallbacksUnderTheirCaller) {
  expect_under_caller(*report_, S + "CompareSlow", S + "RunSlow", {"qsort_r"});
}

// A managed caller of a CPU-heavy native function: zlib's compress2 under the method that called it.
TEST_F(MixedShapes, CpuHeavyNativeFunctionUnderItsManagedCaller) {
  expect_under_caller(*report_, "compress2", S + "RunCompress", {});
}

// A thread made by pthread_create that enters managed code through an UnmanagedCallersOnly entry point: its work
// down to the entry point and the native start routine.
TEST_F(MixedShapes, NativeThreadsWorkDownToItsStart) {
  uint64_t work = 0, from_start = 0;
  for (const auto& thread : threads_of(*report_)) {
    for_each_path(thread, [&](const std::vector<const JsonValue*>& path) {
      if (name_of(*path.back()) != S + "ThreadWork") return;
      if (path.size() >= 2 && name_of(*path[path.size() - 2]) == S + "ThreadWork") return;  // counted at the outer one
      work += samples_of(*path.back());
      bool entry = false, start = false;
      for (const JsonValue* n : path) {
        entry |= name_of(*n) == S + "ThreadEntry";
        start |= name_of(*n) == "umbra_shapes_thread_start";
      }
      if (entry && start) from_start += samples_of(*path.back());
    });
  }
  ASSERT_GT(work, 20u);
  EXPECT_GE(double(from_start), 0.95 * double(work)) << from_start << " of " << work;
}

// A library built without frame pointers (with unwind tables, as distro libraries are) calling back into managed
// code: both of its frames between the callback and its caller.
TEST_F(MixedShapes, CallbackFromALibraryWithoutFramePointersUnderItsCaller) {
  expect_under_caller(*report_, S + "NoFpCallback", S + "RunNoFramePointers",
                      {"umbra_shapes_nofp_inner", "umbra_shapes_nofp_each"});
}

// The same from native code that leaves RBP as it was: the frame-pointer chain through the callback goes on into
// managed code past the library's frames, which must be there all the same.
TEST_F(MixedShapes, CallbackFromNativeCodeThatLeavesRbpUnderItsCaller) {
  expect_under_caller(*report_, S + "KeepRbpCallback", S + "KeepRbpRound",
                      {"umbra_shapes_nofp_inner", "umbra_shapes_keep_rbp_each"});
}

// Every sample's stack goes down to its thread's start (libc's clone3 for a thread, the process's _start in the
// executable, which is unnamed there: "dotnet+0x6bd9") or, stopped short of it, is kept under the marker and counted:
// none is kept as if it were whole.
TEST_F(MixedShapes, EveryStackEndsAtItsThreadsStartOrUnderTheMarker) {
  const std::set<std::string> starts = {"clone3", "__clone3", "clone", "__clone", "start_thread", "_start"};
  auto is_start = [&](const JsonValue& root) {
    const std::string module = root.find("module")->as_string();
    const bool in_executable = module.find(".so") == std::string::npos;
    return root.find("kind")->as_string() == "native" && (starts.count(name_of(root)) || in_executable);
  };
  uint64_t samples = 0, marked = 0;
  std::map<std::string, uint64_t> other_roots;
  for (const auto& thread : threads_of(*report_)) {
    for (const auto& root : roots_of(thread)) {
      samples += samples_of(root);
      if (name_of(root) == "[stack incomplete]") marked += samples_of(root);
      else if (!is_start(root)) other_roots[name_of(root) + " in " + root.find("module")->as_string()] += samples_of(root);
    }
  }
  std::string listed;
  for (const auto& [name, count] : other_roots) listed += name + "=" + std::to_string(count) + " ";
  EXPECT_GT(samples, 100u);
  EXPECT_TRUE(other_roots.empty()) << listed;
  const JsonValue& sampler = *report_->find("stats")->find("sampler");
  ASSERT_NE(sampler.find("incomplete_stacks"), nullptr) << sampler.dump();
  uint64_t counted = 0;
  for (const auto& [name, count] : sampler.find("incomplete_stacks")->as_object()) counted += count.as_uint();
  EXPECT_EQ(marked, counted) << sampler.dump();
}

}  // namespace
}  // namespace umbra::testing
