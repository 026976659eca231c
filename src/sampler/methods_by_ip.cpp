#include "sampler/methods_by_ip.h"

#include "snapshot/code_ranges.h"

#include <algorithm>

namespace umbra {
namespace {

// Resolved IPs kept per process; past this many the map starts again (code replaced by tiering is then forgotten).
constexpr size_t kMaxResolvedIps = size_t(1) << 20;

}  // namespace

clr::FunctionID MethodsByIp::function_at(uintptr_t ip) {
  // The runtime's lookup is not made for any address: a word read off the stack, or a frame-pointer chain gone
  // astray, may point anywhere (it crashed inside GetFunctionFromIP on such a word). Only executable memory
  // outside ELF objects is asked about; it is not remembered, since the mappings change.
  if (!in_managed_code(ip)) {
    if (!outside_elf_code(ip)) return 0;
    // Perhaps code mapped since the mappings were read: the kernel tells of the mapping that holds it.
    CodeRanges& ranges = process_code_ranges();
    CodeRanges::Learned learned = ranges.learn_mapping_of(ip);
    if (learned == CodeRanges::Learned::kNotExecutable) return 0;
    // Where it cannot, read the mappings again, at most every 20 ms (a chain gone astray gives addresses that are
    // never code, and reading the mappings costs 0.1-0.6 ms), or every 2 ms for an address in a reservation,
    // where the runtime puts the code it compiles.
    if (learned == CodeRanges::Learned::kUnknown)
      ranges.refresh_executable(ranges.in_reservation(ip) ? 2'000'000 : 20'000'000);
    if (!in_managed_code(ip)) {
      missed_unmapped_code_ = true;
      return 0;
    }
  }
  auto [it, inserted] = functions_by_ip_.try_emplace(ip, 0);
  if (!inserted) return it->second;
  clr::FunctionID function = 0;
  if (clr::succeeded(info_.GetFunctionFromIP(reinterpret_cast<clr::LPCBYTE>(ip), &function)) && function != 0) {
    it->second = function;
    names_.ensure(function);
  }
  if (functions_by_ip_.size() > kMaxResolvedIps) functions_by_ip_.clear();
  return function;
}

bool MethodsByIp::keeps_no_frame(clr::FunctionID function, uintptr_t ip) {
  auto [it, inserted] = frameless_by_ip_.try_emplace(ip, false);
  if (!inserted) return it->second;
  if (frameless_by_ip_.size() > kMaxResolvedIps) frameless_by_ip_.clear();
  constexpr clr::ULONG32 kMaxVersions = 8, kMaxRanges = 4;
  clr::UINT_PTR starts[kMaxVersions];
  clr::ULONG32 versions = 0;
  if (!clr::succeeded(info_.GetNativeCodeStartAddresses(function, 0, kMaxVersions, &versions, starts))) return false;
  for (clr::ULONG32 v = 0; v < std::min(versions, kMaxVersions); ++v) {
    clr::COR_PRF_CODE_INFO ranges[kMaxRanges];
    clr::ULONG32 count = 0;
    if (!clr::succeeded(info_.GetCodeInfo4(starts[v], kMaxRanges, &count, ranges))) continue;
    for (clr::ULONG32 r = 0; r < std::min(count, kMaxRanges); ++r) {
      if (ip < ranges[r].startAddress || ip - ranges[r].startAddress >= ranges[r].size) continue;
      if (!in_managed_code(starts[v])) return false;
      constexpr uint8_t kPushRbp = 0x55;
      bool frameless = *reinterpret_cast<const uint8_t*>(starts[v]) != kPushRbp;
      frameless_by_ip_[ip] = frameless;
      return frameless;
    }
  }
  return false;
}

uintptr_t MethodsByIp::resolve(const NativeCapture& capture, std::vector<SampleFrame>& leaf_first) {
  leaf_first.clear();
  missed_unmapped_code_ = false;
  uint32_t last_managed_index = ~0u;  // the capture index of the last managed frame kept
  uintptr_t replaced_ip = 0;
  for (uint32_t i = 0; i < capture.count; ++i) {
    uintptr_t ip = capture.frames[i];
    if (!outside_elf_code(ip)) {
      leaf_first.push_back({ip, true});
      continue;
    }
    clr::FunctionID f = function_at(i == 0 ? ip : ip - 1);
    // Where a native run hands back to managed code, the IP may be where the thread was interrupted, not a return
    // address: the runtime's handling of a hardware fault returns to the faulting instruction, the first of a
    // frameless method that read through a null reference. One byte back is then another method's code. (A call
    // that ends a method is followed by a breakpoint, so that no return address is a method's first byte.)
    if (i > 0 && !outside_elf_code(capture.frames[i - 1]))
      if (clr::FunctionID here = function_at(ip); here != 0 && here != f) f = here;
    if (f == 0) continue;  // a stub
    bool follows_managed = last_managed_index == i - 1 && !leaf_first.empty();
    // A recovered frame of the method just before it is that method's own record of a call it made (the runtime's
    // record of a call into native code keeps the call's return address), not a frame.
    if (capture.is_recovered(i) && follows_managed && leaf_first.back().id == f) continue;
    // A recovered frame right after two frames of one method: the second is the original code of a method
    // replaced on stack, a frame that is not there (whole_stack_unwind.h).
    if (capture.is_recovered(i) && i >= 2 && follows_managed && leaf_first.size() >= 2 &&
        !leaf_first[leaf_first.size() - 2].native && leaf_first[leaf_first.size() - 2].id == leaf_first.back().id) {
      leaf_first.pop_back();
      if (replaced_ip == 0) replaced_ip = capture.frames[i - 1];  // the leaf's, which the word on top may return into
    }
    leaf_first.push_back({f, false});
    last_managed_index = i;
    uintptr_t caller = capture.skipped_caller[i];
    if (caller == 0 || !keeps_no_frame(f, i == 0 ? ip : ip - 1)) continue;
    if (!outside_elf_code(caller)) {
      leaf_first.push_back({caller, true});  // a native caller (a callback's)
    } else if (clr::FunctionID skipped = function_at(caller - 1); skipped != 0) {
      leaf_first.push_back({skipped, false});
    }
  }
  return replaced_ip;
}

}  // namespace umbra
