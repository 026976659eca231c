// Sampled mode, after the runtime has resumed: each walk becomes a sample in its thread's SampledTree, with the
// native top the thread's signal handler captured stitched above the managed frames when it belongs to the walk.
//
// Contract: the sampler thread only, under the sampler's tree mutex (the report reads the trees under it).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "clr/corprof.h"
#include "names/function_names.h"
#include "sampler/sampler_stats.h"
#include "sampler/stack_tick.h"

namespace umbra {

class SampledAttribution {
 public:
  SampledAttribution(clr::ICorProfilerInfo10& info, FunctionNames& names);

  void add(const StackTick& walks, uint64_t tick_index, SamplerStats& tick);
  // The native IPs of the stacks added since the last call (the sampler names those it has not met yet).
  std::vector<uintptr_t> take_native_ips() { return std::exchange(native_ips_, {}); }

 private:
  // kEmpty: a native top was captured but held no frame (the sample keeps its managed frames, and is not repeated
  // for a thread whose CPU time stands still: the next capture may well find the native frames).
  enum class NativeTop { kNone, kStitched, kLost, kEmpty };
  NativeTop stitch_native_top(NativeCapture& capture, const StackTick::Walk& walk, uint64_t tick_index,
                              SamplerStats& tick);

  clr::ICorProfilerInfo10& info_;
  FunctionNames& names_;
  std::vector<SampleFrame> stack_;  // one stitched stack, root first
  std::vector<uintptr_t> native_ips_;
};

}  // namespace umbra
