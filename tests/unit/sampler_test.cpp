// The sampler's ticks against a fake runtime: which threads are walked, under suspension, into which trees, and
// what is counted when the runtime refuses, in both modes.
#include "sampler/sampler.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "shadow_limits.h"
#include "fake_thread_enum.h"
#include "unimplemented_profiler_info.h"

namespace umbra {
namespace {

// A runtime with fixed managed stacks (leaf first) per ThreadID.
class FakeRuntime final : public testing::UnimplementedProfilerInfo {
 public:
  std::map<clr::ThreadID, std::vector<clr::FunctionID>> stacks;
  clr::HRESULT suspend_result = clr::S_OK;
  int suspensions = 0, resumes = 0, walks = 0, walks_while_running = 0;
  bool suspended = false;

  clr::HRESULT SuspendRuntime() override {
    if (!clr::succeeded(suspend_result)) return suspend_result;
    ++suspensions;
    suspended = true;
    return clr::S_OK;
  }
  clr::HRESULT ResumeRuntime() override {
    ++resumes;
    suspended = false;
    return clr::S_OK;
  }
  clr::HRESULT EnumThreads(clr::ICorProfilerThreadEnum** out) override {
    *out = enumerator_.listing_keys_of(stacks);
    return clr::S_OK;
  }
  clr::HRESULT DoStackSnapshot(clr::ThreadID thread, clr::StackSnapshotCallback* callback, clr::ULONG32,
                               void* client_data, clr::BYTE[], clr::ULONG32) override {
    ++walks;
    if (!suspended) ++walks_while_running;
    auto it = stacks.find(thread);
    if (it == stacks.end() || it->second.empty()) return clr::E_FAIL;
    for (clr::FunctionID f : it->second) callback(f, 0x1000 + f, 0, 0, nullptr, client_data);
    return clr::S_OK;
  }
  clr::HRESULT InitializeCurrentThread() override { return clr::S_OK; }

 private:
  testing::FakeThreadEnum enumerator_;
};

// The samples of `thread`'s sampled tree on the path `root_first`.
uint64_t samples_at(ThreadRegistry& registry, clr::ThreadID thread, const std::vector<clr::FunctionID>& root_first) {
  for (const auto& t : registry.snapshot()) {
    if (t.record->id != thread) continue;
    const SampledTree& tree = t.record->sampled.tree;
    uint32_t at = 0;
    for (clr::FunctionID f : root_first) {
      uint32_t found = 0;
      for (uint32_t child : tree.node(at).children)
        if (tree.node(child).frame == SampleFrame{f, false}) found = child;
      if (found == 0) return 0;
      at = found;
    }
    return tree.node(at).self_samples;
  }
  return 0;
}

// Sampled mode with a suspension and a walk at every tick (the fake runtime's threads cannot answer signals).
SamplerOptions suspending_walker() {
  SamplerOptions options;
  options.walker = SamplerOptions::Walker::kSuspend;
  return options;
}

struct SampledFixture : ::testing::Test {
  FakeRuntime runtime;
  ShadowPool pool{testing::small_limits()};
  ThreadRegistry registry{pool};
  FunctionNames names{&runtime};
  Sampler sampler{runtime, registry, names, suspending_walker()};
};

TEST_F(SampledFixture, EachTickWalksEveryKnownThreadUnderOneSuspension) {
  runtime.stacks[1] = {12, 11};  // leaf first: 11 calls 12
  runtime.stacks[2] = {21};
  registry.on_created(1);
  registry.on_created(2);
  for (int i = 0; i < 3; ++i) sampler.tick();
  EXPECT_EQ(runtime.suspensions, 3);
  EXPECT_EQ(runtime.resumes, 3);
  EXPECT_EQ(runtime.walks, 6);
  EXPECT_EQ(runtime.walks_while_running, 0);
  EXPECT_EQ(samples_at(registry, 1, {11, 12}), 3u);
  EXPECT_EQ(samples_at(registry, 2, {21}), 3u);
  SamplerStats stats = sampler.stats();
  EXPECT_EQ(stats.ticks, 3u);
  EXPECT_EQ(stats.samples, 6u);
  EXPECT_EQ(stats.suspensions, 3u);
}

TEST_F(SampledFixture, AThreadMetBeforeItsThreadCreatedIsSampledFromTheNextTick) {
  runtime.stacks[7] = {70};  // the main thread: no ThreadCreated
  sampler.tick();
  EXPECT_EQ(sampler.stats().drops[size_t(SampleDrop::kThreadNotYetKnown)], 1u);
  EXPECT_EQ(samples_at(registry, 7, {70}), 0u);
  sampler.tick();
  EXPECT_EQ(samples_at(registry, 7, {70}), 1u);
}

TEST_F(SampledFixture, ARefusedSuspensionIsCountedAndNothingIsWalked) {
  runtime.stacks[1] = {11};
  registry.on_created(1);
  runtime.suspend_result = clr::CORPROF_E_SUSPENSION_IN_PROGRESS;
  sampler.tick();
  EXPECT_EQ(runtime.walks, 0);
  EXPECT_EQ(runtime.resumes, 0);
  SamplerStats stats = sampler.stats();
  EXPECT_EQ(stats.drops[size_t(SampleDrop::kSuspensionInProgress)], 1u);
  EXPECT_EQ(stats.samples, 0u);
  EXPECT_EQ(stats.ticks, 1u);
}

TEST_F(SampledFixture, AnEndedThreadIsNeverWalkedAndKeepsItsTree) {
  runtime.stacks[1] = {11};
  registry.on_created(1);
  sampler.tick();
  registry.on_destroyed(1);
  sampler.tick();  // the runtime still lists it (its ThreadID is being torn down)
  EXPECT_EQ(runtime.walks, 1);
  EXPECT_EQ(samples_at(registry, 1, {11}), 1u);
  EXPECT_EQ(sampler.stats().drops[size_t(SampleDrop::kThreadNotYetKnown)], 1u);
}

TEST_F(SampledFixture, AThreadWithNoManagedFrameIsCountedAsSuch) {
  runtime.stacks[1] = {};
  registry.on_created(1);
  sampler.tick();
  EXPECT_EQ(sampler.stats().drops[size_t(SampleDrop::kNoFrames)], 1u);
  EXPECT_EQ(sampler.stats().samples, 0u);
}

TEST_F(SampledFixture, AfterStopTheTreesAreLeftAlone) {
  runtime.stacks[1] = {11};
  registry.on_created(1);
  sampler.tick();
  sampler.stop();
  sampler.tick();
  EXPECT_EQ(samples_at(registry, 1, {11}), 1u);
  EXPECT_EQ(runtime.suspensions, 1) << "no suspension once stopping";
}

// Sampled mode's walker by signal suspends only to check its stacks and to meet the threads that started before
// umbra heard of them: every thread, for an attach. A first suspension refused (a GC under way) must not leave them
// unknown until the next check, seconds later.
TEST(SignalWalkerSampler, ThreadsStartedBeforeUmbraAreMetAtTheFirstSuspensionGranted) {
  FakeRuntime runtime;
  runtime.stacks[7] = {70};  // no ThreadCreated
  ShadowPool pool{testing::small_limits()};
  ThreadRegistry registry{pool};
  FunctionNames names{&runtime};
  SamplerOptions options;
  options.reconcile_every = 1000;
  Sampler sampler{runtime, registry, names, options};
  runtime.suspend_result = clr::CORPROF_E_SUSPENSION_IN_PROGRESS;
  sampler.tick();
  sampler.tick();
  runtime.suspend_result = clr::S_OK;
  sampler.tick();
  EXPECT_EQ(runtime.suspensions, 1) << "a tick after refused suspensions asks again";
  EXPECT_EQ(sampler.stats().drops[size_t(SampleDrop::kSuspensionInProgress)], 2u);
  EXPECT_EQ(sampler.stats().drops[size_t(SampleDrop::kThreadNotYetKnown)], 1u);
  EXPECT_EQ(registry.snapshot().size(), 1u) << "the thread the walk listed is known from then on";
  for (int i = 0; i < 5; ++i) sampler.tick();
  EXPECT_EQ(runtime.suspensions, 1) << "once the threads are met, ticks take stacks by signal alone";
}

// Shadow mode: a sample on each thread's current node at every tick, and a snapshot aligned with the shadow stack
// every `reconcile_every` ticks.
TEST(ShadowSampler, SamplesTheShadowEveryTickAndReconcilesEveryNth) {
  FakeRuntime runtime;
  ShadowPool pool(testing::small_limits());
  pool.prepare(1);
  ThreadRegistry registry(pool);
  FunctionNames names(&runtime);
  ThreadShadow* shadow = pool.claim(5);  // this thread, as ThreadID 5
  shadow->enter(51, 0);
  shadow->enter(52, 0);
  shadow->enter(53, 0);  // its leave is never seen: the snapshot shows 51 -> 52 only
  runtime.stacks[5] = {52, 51};
  registry.on_created(5);
  Sampler sampler(runtime, registry, names, SamplerOptions{10, &pool, 4});
  for (int i = 0; i < 8; ++i) sampler.tick();
  EXPECT_EQ(runtime.suspensions, 2);  // ticks 4 and 8
  SamplerStats stats = sampler.stats();
  EXPECT_EQ(stats.ticks, 8u);
  EXPECT_EQ(stats.snapshot_ticks, 2u);
  ReconcileCounts counts = sampler.reconcile_counts();
  EXPECT_EQ(counts.snapshots, 2u);
  EXPECT_EQ(counts.repairs[size_t(ReconcileRepair::kMissedLeave)], 1u);  // 53 popped at the first snapshot
  EXPECT_EQ(counts.unexplained, 0u);
  EXPECT_EQ(shadow->depth(), 2u);
  // Samples: 4 on 53 before the repair, then 4 on 52.
  EXPECT_EQ(stats.samples, 8u);
  EXPECT_EQ(shadow->current_node()->self_samples.load(), 4u);
}

}  // namespace
}  // namespace umbra
