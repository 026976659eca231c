// The memory all threads' call-tree nodes may use together (--max-tree-mb). A thread takes it a chunk at a time as
// its tree grows, so one thread with a huge tree can have most of it and a thousand small ones cost little.
//
// Contract: take_up_to() is lock-free (a compare-and-swap loop once per chunk) and is called from the hooks.
#pragma once

#include <atomic>
#include <cstddef>

namespace umbra {

class NodeBudget {
 public:
  explicit NodeBudget(size_t bytes) : left_(bytes), limit_(bytes) {}
  NodeBudget(const NodeBudget&) = delete;
  NodeBudget& operator=(const NodeBudget&) = delete;

  // Takes `bytes`, or what is left if that is less; returns what it took.
  size_t take_up_to(size_t bytes) {
    size_t left = left_.load(std::memory_order_relaxed);
    size_t taken = 0;
    do {
      taken = left < bytes ? left : bytes;
    } while (taken != 0 && !left_.compare_exchange_weak(left, left - taken, std::memory_order_relaxed));
    return taken;
  }
  size_t limit() const { return limit_; }
  size_t left() const { return left_.load(std::memory_order_relaxed); }

 private:
  std::atomic<size_t> left_;
  const size_t limit_;
};

}  // namespace umbra
