// Time stamps for the hooks: the TSC (a few ns to read) on x86-64, converted to nanoseconds once, at report time,
// by a rate measured over the whole run against CLOCK_MONOTONIC. Falls back to CLOCK_MONOTONIC elsewhere.
// Hot path: read_ticks() never blocks, allocates or logs.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <ctime>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "hooks/shadow_layout.h"

namespace umbra {

__attribute__((always_inline)) inline uint64_t read_ticks() {
#if defined(__x86_64__)
  return __rdtsc();
#else
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
#endif
}

// The hooks' clock, in TSC units either way. Exact: the TSC read at every hook (two reads per call, about 10 ns
// each on some x86-64 CPUs). Coarse (CoarseClock): a TSC value republished every millisecond by a native thread,
// read with one load, while hooked calls are frequent; the thread sets `exact` while they are rare. Coarse times
// are unbiased in aggregate: a call lasting d is charged d on average, as a sampler at that rate would; a single
// short call is charged 0 or one period.
struct alignas(64) HookClock {
  std::atomic<uint64_t> coarse_ticks{0};
  std::atomic<bool> exact{true};
};
static_assert(offsetof(HookClock, coarse_ticks) == UMBRA_CLOCK_COARSE_TICKS);
static_assert(offsetof(HookClock, exact) == UMBRA_CLOCK_EXACT);
// Named umbra_hook_clock for the assembly fast path (elt3_trampolines.S).
inline HookClock g_hook_clock asm("umbra_hook_clock");

__attribute__((always_inline)) inline uint64_t hook_ticks() {
  if (g_hook_clock.exact.load(std::memory_order_relaxed)) return read_ticks();
  return g_hook_clock.coarse_ticks.load(std::memory_order_relaxed);
}

inline uint64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

// Pairs a tick reading with a monotonic reading at start; ns_per_tick() uses a second pair taken when asked.
class TickCalibration {
 public:
  TickCalibration() : start_ticks_(read_ticks()), start_ns_(monotonic_ns()) {}
  uint64_t start_ns() const { return start_ns_; }
  uint64_t start_ticks() const { return start_ticks_; }
  double ns_per_tick() const {
    uint64_t ticks = read_ticks() - start_ticks_;
    uint64_t ns = monotonic_ns() - start_ns_;
    return ticks == 0 ? 1.0 : double(ns) / double(ticks);
  }

 private:
  uint64_t start_ticks_;
  uint64_t start_ns_;
};

}  // namespace umbra
