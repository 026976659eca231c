// One thread's stack as DoStackSnapshot reports it, under SuspendRuntime, into memory prepared in advance.
//
// Contract: walk_thread() runs on the sampler thread while the runtime is suspended. It does not allocate, lock
// or log. Runs of native frames between managed ones (funcId == 0 with a register context) are unwound with
// libunwind from that context, until the first IP without unwind information (JIT-compiled code).
#pragma once

#include <cstddef>
#include <cstdint>

#include "clr/corprof.h"
#include "snapshot/native_run_cache.h"
#include "snapshot/sampled_tree.h"

namespace umbra {

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
