// Reconciliation through the sampler, against a fake runtime: a difference it cannot explain is counted at every
// snapshot and logged once, with both stacks side by side; managed frames the hooks did not see are the tail-call
// dispatcher when named so, uninstrumented code otherwise; --verify's summary shows what was found.
#include "sampler/reconciliation.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sampler/sampler.h"
#include "shadow_limits.h"
#include "fake_metadata_import.h"
#include "fake_thread_enum.h"
#include "unimplemented_profiler_info.h"

namespace umbra {
namespace {

// A runtime with fixed managed stacks (leaf first) per ThreadID. Function f is method token mdtMethodDef | f of one
// module; the functions `metadata` does not name show as their ids.
class FakeRuntime final : public testing::UnimplementedProfilerInfo {
 public:
  std::map<clr::ThreadID, std::vector<clr::FunctionID>> stacks;
  testing::FakeMetaDataImport metadata;

  void name(clr::FunctionID function, std::u16string type, std::u16string method) {
    metadata.name_method(token_of(function), clr::mdtTypeDef | 1, std::move(type), std::move(method));
  }

  clr::HRESULT SuspendRuntime() override { return clr::S_OK; }
  clr::HRESULT ResumeRuntime() override { return clr::S_OK; }
  clr::HRESULT EnumThreads(clr::ICorProfilerThreadEnum** out) override {
    *out = enumerator_.listing_keys_of(stacks);
    return clr::S_OK;
  }
  clr::HRESULT DoStackSnapshot(clr::ThreadID thread, clr::StackSnapshotCallback* callback, clr::ULONG32,
                               void* client_data, clr::BYTE[], clr::ULONG32) override {
    for (clr::FunctionID f : stacks[thread]) callback(f, 0x1000 + f, 0, 0, nullptr, client_data);
    return clr::S_OK;
  }
  clr::HRESULT InitializeCurrentThread() override { return clr::S_OK; }
  clr::HRESULT GetFunctionInfo(clr::FunctionID function, clr::ClassID* cls, clr::ModuleID* module,
                               clr::mdToken* token) override {
    *cls = 0;
    *module = 1;
    *token = token_of(function);
    return clr::S_OK;
  }
  clr::HRESULT GetTokenAndMetaDataFromFunction(clr::FunctionID function, clr::REFIID, clr::IUnknown** import,
                                               clr::mdToken* token) override {
    *import = &metadata;
    *token = token_of(function);
    return clr::S_OK;
  }

 private:
  static clr::mdToken token_of(clr::FunctionID function) { return clr::mdtMethodDef | clr::mdToken(function); }

  testing::FakeThreadEnum enumerator_;
};

size_t count_of(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// What three snapshots of thread 5 found: its shadow stack made by `hooks_saw`, its real stack `snapshot` (leaf first).
struct Reconciled {
  ReconcileCounts counts;
  std::string first_unexplained;
  std::string logged;  // stderr during the ticks
};

Reconciled reconcile_three_times(FakeRuntime& runtime, const std::function<void(ThreadShadow&)>& hooks_saw,
                                 std::vector<clr::FunctionID> snapshot) {
  ShadowPool pool(testing::small_limits());
  pool.prepare(1);
  ThreadRegistry registry(pool);
  FunctionNames names(&runtime);
  hooks_saw(*pool.claim(5));
  runtime.stacks[5] = std::move(snapshot);
  registry.on_created(5);
  Sampler sampler(runtime, registry, names, SamplerOptions{10, &pool, 1});
  ::testing::internal::CaptureStderr();
  for (int i = 0; i < 3; ++i) sampler.tick();
  Reconciled out;
  out.logged = ::testing::internal::GetCapturedStderr();
  out.counts = sampler.reconcile_counts();
  out.first_unexplained = sampler.first_unexplained();
  return out;
}

void enter_0x51_then_0x52(ThreadShadow& s) {
  s.enter(0x51, 0);
  s.enter(0x52, 0);
}

// The shadow stack says 0x51 -> 0x52, the runtime 0x71 -> 0x72: nothing in common, at each of three snapshots.
TEST(Reconciliation, AnUnexplainedDifferenceIsLoggedOnceWithBothStacksSideBySide) {
  FakeRuntime runtime;
  Reconciled found = reconcile_three_times(runtime, enter_0x51_then_0x52, {0x72, 0x71});
  const std::string& logged = found.logged;
  EXPECT_EQ(found.counts.unexplained, 3u);
  EXPECT_EQ(count_of(logged, "unexplained difference between the shadow stack and a snapshot (root first):\n"), 1u)
      << logged;
  // Row by row, root first: the shadow stack's frame on the left, the snapshot's on the right.
  std::vector<std::string> rows;
  for (size_t at = logged.find("\n  "); at != std::string::npos; at = logged.find("\n  ", at + 1))
    rows.push_back(logged.substr(at + 1, logged.find('\n', at + 1) - at - 1));
  ASSERT_EQ(rows.size(), 2u) << logged;
  for (size_t r = 0; r < 2; ++r) {
    const std::string left = r == 0 ? "0x51" : "0x52", right = r == 0 ? "0x71" : "0x72";
    size_t bar = rows[r].find(" | ");
    ASSERT_NE(bar, std::string::npos) << rows[r];
    EXPECT_NE(rows[r].substr(0, bar).find(left), std::string::npos) << rows[r];
    EXPECT_NE(rows[r].substr(bar).find(right), std::string::npos) << rows[r];
  }
  EXPECT_NE(logged.find(found.first_unexplained), std::string::npos) << "kept for --verify's summary";
}

constexpr clr::FunctionID kA = 0x61, kB = 0x62, kC = 0x63, kBetween = 0x64;

// A calls B, which tail-calls C through the runtime's helper: the hooks see B's tail call, so the shadow says A -> C.
void a_calls_b_which_tail_calls_c(ThreadShadow& s) {
  s.enter(kA, 0);
  s.enter(kB, 0);
  s.tailcall(kB, 0);
  s.enter(kC, 0);
}

uint64_t spliced(const ReconcileCounts& counts, ReconcileSplice kind) { return counts.spliced[size_t(kind)]; }

TEST(Reconciliation, TheTailCallDispatcherBetweenTheFramesOfATailCallIsExplained) {
  FakeRuntime runtime;
  runtime.name(kBetween, u"System.Runtime.CompilerServices.RuntimeHelpers", u"DispatchTailCalls");
  ASSERT_EQ(FunctionNames(&runtime).lookup(kBetween).name,
            "System.Runtime.CompilerServices.RuntimeHelpers.DispatchTailCalls");
  Reconciled found = reconcile_three_times(runtime, a_calls_b_which_tail_calls_c, {kC, kBetween, kA});
  EXPECT_EQ(found.counts.snapshots, 3u);
  EXPECT_EQ(found.counts.frames_compared, 6u) << "A and C at each snapshot";
  EXPECT_EQ(spliced(found.counts, ReconcileSplice::kTailcallDispatcher), 3u) << "one at each snapshot";
  EXPECT_EQ(spliced(found.counts, ReconcileSplice::kUninstrumented), 0u);
  EXPECT_EQ(found.counts.unexplained, 0u) << found.logged;
}

TEST(Reconciliation, AnotherManagedFrameInTheDispatchersPlaceIsUninstrumentedCode) {
  FakeRuntime runtime;
  runtime.name(kBetween, u"System.Runtime.CompilerServices.RuntimeHelpers", u"GetHashCode");
  Reconciled found = reconcile_three_times(runtime, a_calls_b_which_tail_calls_c, {kC, kBetween, kA});
  EXPECT_EQ(found.counts.snapshots, 3u);
  EXPECT_EQ(spliced(found.counts, ReconcileSplice::kUninstrumented), 3u) << "one at each snapshot";
  EXPECT_EQ(spliced(found.counts, ReconcileSplice::kTailcallDispatcher), 0u);
  EXPECT_EQ(found.counts.unexplained, 0u) << found.logged;
}

// The differences of AnUnexplainedDifferenceIsLoggedOnceWithBothStacksSideBySide: no frame in common.
TEST(VerifySummary, CountsTheUnexplainedDifferencesAndShowsTheFirstSideBySide) {
  FakeRuntime runtime;
  Reconciled found = reconcile_three_times(runtime, enter_0x51_then_0x52, {0x72, 0x71});
  std::vector<std::string> lines = verify_summary(found.counts, found.first_unexplained);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0],
            "VERIFY: 3 snapshots compared with the shadow stacks, 0 frames matched, 3 UNEXPLAINED differences:");
  ASSERT_EQ(lines.size(), 2u) << "the first difference follows";
  EXPECT_EQ(lines[1].rfind("unexplained difference between the shadow stack and a snapshot (root first):\n", 0), 0u)
      << lines[1];
  for (const char* frame : {"0x51", "0x52", "0x71", "0x72"})
    EXPECT_NE(lines[1].find(frame), std::string::npos) << frame << " in " << lines[1];
}

TEST(VerifySummary, SaysTheStacksAgreeWhenNothingIsUnexplained) {
  FakeRuntime runtime;
  Reconciled found = reconcile_three_times(runtime, enter_0x51_then_0x52, {0x52, 0x51});
  EXPECT_EQ(verify_summary(found.counts, found.first_unexplained),
            std::vector<std::string>{"VERIFY: 3 snapshots compared with the shadow stacks, 6 frames matched, 0 "
                                     "UNEXPLAINED differences - the shadow stacks agree with the runtime"});
}

}  // namespace
}  // namespace umbra
