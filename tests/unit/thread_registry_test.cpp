// The table of threads: names and trees kept when a thread ends, ThreadIDs reused, and the walk guard that keeps
// ThreadDestroyed from returning while a walk of its thread is in flight.
#include "threads/thread_registry.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "shadow_limits.h"

namespace umbra {
namespace {

using testing::small_limits;
using testing::sum_calls;


// The name the registry's table holds for the thread that owns `shadow`.
std::optional<std::string> name_of(ThreadRegistry& registry, const ThreadShadow& shadow) {
  for (const auto& t : registry.snapshot())
    if (t.record->shadow == &shadow) return t.name;
  return std::nullopt;
}

TEST(ThreadRegistry, DestroyedOnAnotherThreadKeepsTheTreeAndTheName) {
  ShadowPool pool(small_limits(256, size_t(4) << 20));
  ThreadRegistry registry(pool);
  pool.prepare(2);
  ThreadShadow* shadow = nullptr;
  std::thread owner([&] {
    shadow = pool.claim(77);
    shadow->enter(5, 0);
    shadow->leave(5, 1);
  });
  owner.join();
  registry.on_name_changed(77, u"W\u00f6rker");
  registry.on_destroyed(77);
  EXPECT_TRUE(shadow->retired.load());
  EXPECT_EQ(name_of(registry, *shadow).value_or(""), "W\xc3\xb6rker");
  // A new thread reusing the ThreadID does not inherit the name.
  registry.on_created(77);
  ThreadShadow* next = pool.claim(77);
  EXPECT_FALSE(name_of(registry, *next).has_value());
  EXPECT_EQ(sum_calls(shadow->root()), 1u);
}

TEST(WalkGuard, ThreadDestroyedWaitsForTheWalkInFlight) {
  ShadowPool pool(testing::small_limits());
  ThreadRegistry registry(pool);
  registry.on_created(42);
  std::vector<std::shared_ptr<SampledThread>> targets;
  registry.sampling_targets(targets);
  ASSERT_EQ(targets.size(), 1u);
  ASSERT_TRUE(targets[0]->begin_walk());
  std::atomic<bool> destroyed{false};
  std::thread destroyer([&] {
    registry.on_destroyed(42);
    destroyed = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(destroyed.load());  // still walking
  targets[0]->end_walk();
  destroyer.join();
  EXPECT_TRUE(destroyed.load());
  EXPECT_FALSE(targets[0]->begin_walk());  // a dying thread is never walked again
  registry.sampling_targets(targets);
  EXPECT_TRUE(targets.empty());
  auto all = registry.snapshot();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_TRUE(all[0].ended);
}

TEST(WalkGuard, ConcurrentWalksAndDestroys) {
  ShadowPool pool(testing::small_limits());
  ThreadRegistry registry(pool);
  constexpr int kThreads = 200;
  for (int i = 1; i <= kThreads; ++i) registry.on_created(clr::ThreadID(i));
  std::atomic<bool> done{false};
  std::atomic<int> walks{0};
  // The guarantee: ThreadDestroyed never returns while a walk of its thread is in flight.
  std::vector<std::atomic<bool>> destroy_returned(kThreads + 1);
  std::atomic<int> violations{0};
  std::thread sampler([&] {
    std::vector<std::shared_ptr<SampledThread>> targets;
    while (!done) {
      registry.sampling_targets(targets);
      for (auto& t : targets) {
        if (!t->begin_walk()) continue;
        for (int spin = 0; spin < 50; ++spin) {
          if (destroy_returned[t->thread_id].load(std::memory_order_seq_cst)) violations.fetch_add(1);
          std::this_thread::yield();
        }
        walks.fetch_add(1);
        t->end_walk();
      }
    }
  });
  for (int i = 1; i <= kThreads; ++i) {
    registry.on_destroyed(clr::ThreadID(i));
    destroy_returned[i].store(true, std::memory_order_seq_cst);
  }
  done = true;
  sampler.join();
  EXPECT_EQ(violations.load(), 0);
  EXPECT_EQ(registry.threads_destroyed(), uint64_t(kThreads));
  std::vector<std::shared_ptr<SampledThread>> left;
  registry.sampling_targets(left);
  EXPECT_TRUE(left.empty());
}

}  // namespace
}  // namespace umbra
