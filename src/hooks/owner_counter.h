// A counter with a single writer (its owning thread) and any number of readers.
// add() is a relaxed load + store: no locked instruction on the hot path, and still a data-race-free atomic.
#pragma once

#include <atomic>
#include <cstdint>

namespace umbra {

class OwnerCounter {
 public:
  __attribute__((always_inline)) void add(uint64_t delta) {
    value_.store(value_.load(std::memory_order_relaxed) + delta, std::memory_order_relaxed);
  }
  uint64_t get() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> value_{0};
};

}  // namespace umbra
