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

// Each of many threads is destroyed while a walk of it is in flight: the walk starts first, then ThreadDestroyed
// is called on another thread, and the walk goes on until ThreadDestroyed has returned or a while has passed.
// ThreadDestroyed must not return before the walk has ended: the destroyer checks that on its return, and a
// ThreadDestroyed that did not wait returns within the while (nothing else holds it), so it is caught every time.
TEST(WalkGuard, ConcurrentWalksAndDestroys) {
  ShadowPool pool(testing::small_limits());
  ThreadRegistry registry(pool);
  constexpr int kThreads = 20;
  constexpr auto kWalkAtMost = std::chrono::milliseconds(20);
  for (int i = 1; i <= kThreads; ++i) registry.on_created(clr::ThreadID(i));
  std::atomic<int> to_destroy{0};                     // the thread the destroyer is to destroy next
  std::vector<std::atomic<bool>> walk_ended(kThreads + 1);
  std::vector<std::atomic<bool>> destroy_returned(kThreads + 1);
  std::atomic<int> early_returns{0};
  std::thread destroyer([&] {
    for (int i = 1; i <= kThreads; ++i) {
      while (to_destroy.load() != i) std::this_thread::yield();
      registry.on_destroyed(clr::ThreadID(i));
      if (!walk_ended[i].load()) early_returns.fetch_add(1);
      destroy_returned[i].store(true);
    }
  });
  int walks = 0, overlapping = 0;
  std::vector<std::shared_ptr<SampledThread>> targets;
  registry.sampling_targets(targets);
  ASSERT_EQ(targets.size(), size_t(kThreads));
  for (auto& t : targets) {
    const int i = int(t->thread_id);
    ASSERT_TRUE(t->begin_walk()) << i;
    ++walks;
    to_destroy.store(i);
    // ThreadDestroyed has begun once the thread is marked dying; the walk is then in flight beside it.
    while (!t->dying.load()) std::this_thread::yield();
    ++overlapping;
    const auto until = std::chrono::steady_clock::now() + kWalkAtMost;
    while (!destroy_returned[i].load() && std::chrono::steady_clock::now() < until) std::this_thread::yield();
    walk_ended[i].store(true);
    t->end_walk();
    while (!destroy_returned[i].load()) std::this_thread::yield();
    EXPECT_FALSE(t->begin_walk()) << "thread " << i << " is walked after its ThreadDestroyed";
  }
  destroyer.join();
  EXPECT_EQ(walks, kThreads);
  EXPECT_EQ(overlapping, kThreads);
  EXPECT_EQ(early_returns.load(), 0) << "ThreadDestroyed returned while a walk of its thread was in flight";
  EXPECT_EQ(registry.threads_destroyed(), uint64_t(kThreads));
  std::vector<std::shared_ptr<SampledThread>> left;
  registry.sampling_targets(left);
  EXPECT_TRUE(left.empty());
}

}  // namespace
}  // namespace umbra
