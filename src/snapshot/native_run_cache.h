// The native runs a thread's stack walks unwound recently, so that the same run is not unwound again at every sample:
// the run below a thread's first managed frame, from the thread's start, is the same for its whole life, and
// unwinding it costs libunwind's lookups every time. A run is reused only if it starts at the same IP, SP and RBP
// and every return address it was unwound through is still in its stack slot.
//
// Contract: one cache per thread, used by one walker at a time (the sampler under suspension, or the thread's own
// capture handler). find() reads the thread's stack: only while the thread is stopped or is the caller. No lock,
// allocation or log: async-signal-safe.
#pragma once

#include <cstdint>

namespace umbra {

struct NativeRunCache {
  static constexpr int kEntries = 2;
  static constexpr uint32_t kMaxFrames = 48;
  struct Entry {
    bool valid = false;
    uintptr_t ip0 = 0, sp0 = 0, bp0 = 0;  // the registers the run was unwound from
    uint32_t count = 0;
    uintptr_t ip[kMaxFrames];
    uintptr_t sp[kMaxFrames];  // frame i's return address ip[i] was read from sp[i] - 8 (i >= 1)
    uintptr_t stop_ip = 0, stop_sp = 0;  // where the run met JIT-compiled code (stop_sp 0: the stack ended)
  };
  // entries[kept[i]] for i < kEntries are the runs kept; entries[kept[kEntries]] is the one a new run is unwound
  // into, which takes a kept one's place only if the run is kept: a run not kept never costs a kept one.
  Entry entries[kEntries + 1];
  uint32_t kept[kEntries + 1] = {0, 1, 2};
  static_assert(kEntries == 2, "kept's initializer names every entry");
  uint32_t next_victim = 0;
  uint64_t hits = 0, misses = 0;

  // The run unwound from these registers that is still on the stack, counted as a hit; nullptr (a miss) if none.
  const Entry* find(uintptr_t ip0, uintptr_t sp0, uintptr_t bp0);
  // The entry to unwind a new run into (in place: an entry is large for a signal handler's stack), emptied and
  // invalid until keep(); the runs kept stay as they are.
  Entry& begin(uintptr_t ip0, uintptr_t sp0, uintptr_t bp0);
  // Forgets every run (the stack they were read from is no longer the one walked).
  void clear();
  // Keeps the run begun in `run` if its frames climb the stack in order within reach of its start (its slots are
  // read by later finds), in place of the run kept longest.
  void keep(Entry& run);
};

}  // namespace umbra
