// One thread's stack as DoStackSnapshot reports it, under SuspendRuntime, into memory prepared in advance.
//
// Contract: walk_thread() runs on the sampler thread while the runtime is suspended. It does not allocate, lock
// or log. Runs of native frames between managed ones (funcId == 0 with a register context) are unwound with
// libunwind from that context, until the first IP without unwind information (JIT-compiled code).
#pragma once

#include <cstddef>
#include <cstdint>

#include "clr/corprof.h"
#include "snapshot/sampled_tree.h"

namespace umbra {

// The native runs a thread's walks unwound recently, so that the same run is not unwound again on every tick (the
// run below a thread's first managed frame, from the thread's start, is the same for its whole life, and unwinding
// it costs libunwind's time under suspension on every tick). A run is reused only if it starts at the same IP, SP and RBP and
// every return address it was unwound through is still in its stack slot. Owned by the thread's SampledThread;
// used only by the sampler thread.
struct NativeRunCache {
  static constexpr int kEntries = 2;
  static constexpr uint32_t kMaxFrames = 48;
  struct Entry {
    bool valid = false;
    uintptr_t ip0 = 0, sp0 = 0, bp0 = 0;  // the context the run was unwound from
    uint32_t count = 0;
    uintptr_t ip[kMaxFrames];
    uintptr_t sp[kMaxFrames];  // frame i's return address ip[i] was read from sp[i] - 8 (i >= 1)
    uintptr_t stop_ip = 0, stop_sp = 0;  // where the run met JIT-compiled code (stop_sp 0: the stack ended)
  };
  Entry entries[kEntries];
  uint32_t next_victim = 0;
  uint64_t hits = 0, misses = 0;
};

// A fixed-capacity span of frames, leaf first.
struct FrameSink {
  SampleFrame* frames = nullptr;
  size_t capacity = 0;
  size_t count = 0;
  bool overflowed = false;
  uintptr_t first_managed_ip = 0;  // IP of the topmost managed frame (to check a native top against)
  clr::FunctionID first_managed_function = 0;
  NativeRunCache* native_runs = nullptr;  // optional: the walked thread's cache
  bool push(SampleFrame f) {
    if (count == capacity) {
      overflowed = true;
      return false;
    }
    frames[count++] = f;
    return true;
  }
};

// Returns DoStackSnapshot's result; the frames are in `sink`.
clr::HRESULT walk_thread(clr::ICorProfilerInfo10& info, clr::ThreadID thread, FrameSink& sink);

// Unwinds native frames from a linux-x64 CONTEXT (as the runtime passes it) into `sink`, through
// sink.native_runs when set. Exposed for tests.
void unwind_native_from_context(const uint8_t* context, uint32_t context_size, FrameSink& sink);

}  // namespace umbra
