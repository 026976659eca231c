// Reconciliation's report of a difference it cannot explain: counted at every snapshot, logged once, with both
// stacks side by side (through the sampler, against a fake runtime).
#include "sampler/reconciliation.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "sampler/sampler.h"
#include "shadow_limits.h"
#include "fake_thread_enum.h"
#include "unimplemented_profiler_info.h"

namespace umbra {
namespace {

// A runtime with fixed managed stacks (leaf first) per ThreadID; it names no function, so umbra shows their ids.
class FakeRuntime final : public testing::UnimplementedProfilerInfo {
 public:
  std::map<clr::ThreadID, std::vector<clr::FunctionID>> stacks;

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

 private:
  testing::FakeThreadEnum enumerator_;
};

size_t count_of(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// The shadow stack says 0x51 -> 0x52, the runtime 0x71 -> 0x72: nothing in common, at each of three snapshots.
TEST(Reconciliation, AnUnexplainedDifferenceIsLoggedOnceWithBothStacksSideBySide) {
  FakeRuntime runtime;
  ShadowPool pool(testing::small_limits());
  pool.prepare(1);
  ThreadRegistry registry(pool);
  FunctionNames names(&runtime);
  ThreadShadow* shadow = pool.claim(5);
  shadow->enter(0x51, 0);
  shadow->enter(0x52, 0);
  runtime.stacks[5] = {0x72, 0x71};
  registry.on_created(5);
  Sampler sampler(runtime, registry, names, SamplerOptions{10, &pool, 1});
  ::testing::internal::CaptureStderr();
  for (int i = 0; i < 3; ++i) sampler.tick();
  std::string logged = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(sampler.reconcile_counts().unexplained, 3u);
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
  EXPECT_NE(logged.find(sampler.first_unexplained()), std::string::npos) << "kept for --verify's summary";
}

}  // namespace
}  // namespace umbra
