// Threads claim shadows and run hooks while a reader walks their trees and the registry retires them:
// the lifetime rules that ThreadSanitizer checks.
#include <gtest/gtest.h>

#include "shadow_limits.h"

#include <atomic>
#include <thread>
#include <vector>

#include "hooks/shadow_hooks.h"
#include "hooks/shadow_pool.h"
#include "threads/thread_registry.h"

namespace umbra {
namespace {

using testing::small_limits;
using testing::sum_calls;


TEST(ShadowPool, ClaimGivesEachThreadItsOwnShadow) {
  ShadowPool pool(small_limits(256, size_t(4) << 20));
  pool.prepare(4);
  EXPECT_EQ(pool.prepared_count(), 4u);
  ThreadShadow* a = pool.claim(1);
  ThreadShadow* b = pool.claim(2);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(a, b);
  EXPECT_GT(a->os_tid, 0);
  EXPECT_EQ(b->thread_id, 2u);
  int claimed = 0;
  pool.for_each_claimed([&](ThreadShadow&) { ++claimed; });
  EXPECT_EQ(claimed, 2);
  EXPECT_EQ(pool.prepared_count(), 2u);
}

TEST(ShadowPool, AnEmptyPoolSaysSo) {
  ShadowPool pool(small_limits(256, size_t(4) << 20));
  EXPECT_EQ(pool.claim(1), nullptr);
}

thread_local clr::ThreadID t_test_thread_id = 0;
clr::ThreadID test_thread_id() { return t_test_thread_id; }

TEST(ShadowPool, ConcurrentOwnersAndAReader) {
  ShadowPool pool(small_limits(256, size_t(4) << 20));
  ThreadRegistry registry(pool);
  pool.prepare(ThreadRegistry::kPreparedShadows);
  hooks::install_pool(&pool, &test_thread_id);
  constexpr int kThreads = 16, kCalls = 20000;
  std::atomic<bool> done{false};
  std::atomic<int> running{kThreads};

  // The reader walks every claimed tree while owners are writing them, as the report and the sampler do.
  std::thread reader([&] {
    while (!done.load(std::memory_order_acquire)) {
      pool.for_each_claimed([&](ThreadShadow& s) {
        for (const CallNode* n = s.current_node(); n; n = n->parent) (void)n->function;
        (void)sum_calls(s.root());
      });
    }
  });

  std::vector<std::thread> owners;
  for (int t = 0; t < kThreads; ++t) {
    registry.on_created(clr::ThreadID(t + 1));  // prepares a shadow for the thread about to start
    owners.emplace_back([&, t] {
      t_test_thread_id = clr::ThreadID(t + 1);
      ThreadShadow* s = hooks::current_shadow();  // claims on the first call, as the first hook would
      ASSERT_NE(s, nullptr);
      for (int i = 0; i < kCalls; ++i) {
        hooks::on_enter2(1, 0, 0, nullptr);
        hooks::on_enter2(2 + (i % 7), 0, 0, nullptr);
        hooks::on_leave2(2 + (i % 7), 0, 0, nullptr);
        hooks::on_leave2(1, 0, 0, nullptr);
      }
      registry.on_destroyed(clr::ThreadID(t + 1));  // on the dying thread itself: releases the pointer
      EXPECT_EQ(hooks::existing_shadow(), nullptr);
      running.fetch_sub(1);
    });
  }
  for (auto& o : owners) o.join();
  done.store(true, std::memory_order_release);
  reader.join();

  int shadows = 0;
  pool.for_each_claimed([&](ThreadShadow& s) {
    ++shadows;
    EXPECT_TRUE(s.retired.load()) << s.thread_id;
    EXPECT_EQ(sum_calls(s.root()), uint64_t(kCalls) * 2);
    EXPECT_EQ(s.depth(), 0u);
  });
  EXPECT_EQ(shadows, kThreads);
  EXPECT_EQ(registry.threads_created(), uint64_t(kThreads));
  EXPECT_EQ(registry.threads_destroyed(), uint64_t(kThreads));
  hooks::install_pool(nullptr, nullptr);
}

}  // namespace
}  // namespace umbra
