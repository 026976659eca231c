// Hands a prepared ThreadShadow to a thread the first time one of its hooks runs, without allocating.
//
// Contract:
// - claim() is called from the hooks (hot path, owner thread): a lock-free pop and a lock-free list push; it never
//   blocks, allocates or logs. It returns nullptr if no prepared shadow is left (the caller counts the drop).
// - prepare() allocates and is called from callbacks that may allocate: a reserve at Initialize, then one per
//   ThreadCreated, so that a burst of new threads never outruns the pool.
// - for_each_claimed() may run on any thread at any time; shadows are never freed before the pool is destroyed,
//   which happens only after the report has been written and the hooks can no longer run.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <vector>
#include <mutex>

#include <boost/lockfree/stack.hpp>

#include "hooks/thread_shadow.h"

namespace umbra {

class ShadowPool {
 public:
  static constexpr size_t kMaxPrepared = 4096;

  explicit ShadowPool(const ShadowLimits& limits) : limits_(limits), budget_(limits.node_bytes) {}
  ShadowPool(const ShadowPool&) = delete;
  ShadowPool& operator=(const ShadowPool&) = delete;

  // Adds `count` prepared shadows (up to kMaxPrepared in all). Allocates; not for hooks.
  void prepare(size_t count);
  // Before the first prepare(): every method has hooks after all (the runtime refused to let umbra choose).
  void hook_every_method() { limits_.every_method_hooked = true; }
  // Hot path. Binds a prepared shadow to the calling thread, or returns nullptr. The identity (os tid and the
  // runtime's ThreadID) is recorded before the shadow is published to readers.
  ThreadShadow* claim(clr::ThreadID thread_id);

  template <typename Visit>
  void for_each_claimed(Visit&& visit) const {
    for (ThreadShadow* s = claimed_head_.load(std::memory_order_acquire); s;
         s = s->next_claimed.load(std::memory_order_acquire))
      visit(*s);
  }
  ThreadShadow* claimed_head() const { return claimed_head_.load(std::memory_order_acquire); }
  size_t prepared_count() const { return prepared_count_.load(std::memory_order_relaxed); }
  const NodeBudget& node_budget() const { return budget_; }

 private:
  ShadowLimits limits_;
  NodeBudget budget_;
  boost::lockfree::stack<ThreadShadow*, boost::lockfree::capacity<kMaxPrepared>> prepared_;
  std::atomic<size_t> prepared_count_{0};
  std::atomic<ThreadShadow*> claimed_head_{nullptr};
  std::mutex owned_mutex_;  // guards owned_ (prepare only)
  std::vector<std::unique_ptr<ThreadShadow>> owned_;
};

}  // namespace umbra
