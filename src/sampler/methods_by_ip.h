// The frames of a stack taken by signal as the sampler's trees hold them: JIT-compiled code as its method
// (GetFunctionFromIP, on the sampler thread, never in the handler), stubs left out, native code as its address.
// Each IP is looked up once; the method's name is fetched while the method is alive.
// Contract: the sampler thread only; allocates.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "clr/corprof.h"
#include "names/function_names.h"
#include "snapshot/native_capture.h"
#include "snapshot/sampled_tree.h"

namespace umbra {

class MethodsByIp {
 public:
  MethodsByIp(clr::ICorProfilerInfo10& info, FunctionNames& names) : info_(info), names_(names) {}

  // The method whose code holds `ip`, or 0 (a stub, not managed code, or memory not executable when the mappings
  // were last read).
  clr::FunctionID function_at(uintptr_t ip);
  // The capture's IPs as frames, leaf first (a return address is looked up one byte back, inside its call). A
  // method that keeps no frame of its own gets the caller the chain skipped (NativeCapture::skipped_caller).
  // Returns the IP of the innermost frame it dropped as the original code of a method replaced on stack, 0 if none.
  uintptr_t resolve(const NativeCapture& capture, std::vector<SampleFrame>& leaf_first);
  // Whether the last resolve() left out an address outside every executable mapping read so far: perhaps code
  // mapped since (the mappings are read again at most every 20 ms), so that stack may lack a method.
  bool missed_unmapped_code() const { return missed_unmapped_code_; }
  // Whether the code of `function` that holds `ip` keeps no frame pointer: its first instruction is not push rbp,
  // with which the JIT (and the precompiling compiler) begins every frame that has one. False when not known.
  bool keeps_no_frame(clr::FunctionID function, uintptr_t ip);

 private:
  clr::ICorProfilerInfo10& info_;
  FunctionNames& names_;
  std::unordered_map<uintptr_t, clr::FunctionID> functions_by_ip_;  // 0: not a method (a stub)
  std::unordered_map<uintptr_t, bool> frameless_by_ip_;
  bool missed_unmapped_code_ = false;
};

}  // namespace umbra
