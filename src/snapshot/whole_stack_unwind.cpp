#include "snapshot/whole_stack_unwind.h"

#include <ucontext.h>

#include <cstdint>

#include "snapshot/native_capture.h"
#include "snapshot/unwind_info.h"

namespace umbra {
namespace {

// A JIT frame larger than this (locals, stackalloc) ends the walk: a chain pointing further is taken as corrupt.
constexpr uintptr_t kMaxFrameBytes = uintptr_t(1) << 20;

struct Registers {
  uintptr_t ip, sp, bp;
};

// One JIT-compiled frame: [rbp] is the caller's rbp, [rbp + 8] the return address. False at the end of the chain.
// Other frames' memory, read on purpose: not an error for AddressSanitizer to report.
__attribute__((no_sanitize("address"))) bool step_frame_pointer(Registers& r) {
  if (r.bp < r.sp || r.bp - r.sp > kMaxFrameBytes || (r.bp & 7) != 0) return false;
  const uintptr_t* frame = reinterpret_cast<const uintptr_t*>(r.bp);
  uintptr_t caller_bp = frame[0];
  r.ip = frame[1];
  r.sp = r.bp + 16;
  r.bp = caller_bp;
  return r.ip != 0;
}

}  // namespace

__attribute__((no_sanitize("address"))) void unwind_whole_stack(NativeCapture& capture, void* ucontext) {
  ucontext_t* interrupted = static_cast<ucontext_t*>(ucontext);
  Registers r{uintptr_t(interrupted->uc_mcontext.gregs[REG_RIP]), uintptr_t(interrupted->uc_mcontext.gregs[REG_RSP]),
              uintptr_t(interrupted->uc_mcontext.gregs[REG_RBP])};
  // A frameless leaf (or one in its prologue) keeps its return address here, where the frame-pointer chain skips it.
  capture.word_at_sp = r.sp != 0 && (r.sp & 7) == 0 ? *reinterpret_cast<const uintptr_t*>(r.sp) : 0;
  uint32_t count = 0;
  uintptr_t stop_ip = 0;
  bool truncated = false;
  bool signal_frame = true;  // the first frame's IP is the interrupted instruction, not a return address
  // Native runs restart libunwind from a copy of the context with the run's first registers: the callee-saved
  // registers other than RBP are stale there, and the CFA rules of ordinary code never read them.
  ucontext_t restart = *interrupted;
  bool by_frame_pointer = false;  // also ELF code that has no unwind information (libunwind would not move)
  while (r.ip != 0) {
    if (by_frame_pointer || outside_elf_code(r.ip)) {
      by_frame_pointer = false;
      if (stop_ip == 0) stop_ip = r.ip;
      if (count == NativeCapture::kMaxFrames) {
        truncated = true;
        break;
      }
      capture.frames[count++] = r.ip;
      if (!step_frame_pointer(r)) break;
      signal_frame = false;
      continue;
    }
    restart.uc_mcontext.gregs[REG_RIP] = greg_t(r.ip);
    restart.uc_mcontext.gregs[REG_RSP] = greg_t(r.sp);
    restart.uc_mcontext.gregs[REG_RBP] = greg_t(r.bp);
    unw_cursor_t cursor;
    if (unw_init_local2(&cursor, reinterpret_cast<unw_context_t*>(&restart), signal_frame ? UNW_INIT_SIGNAL_FRAME : 0) != 0)
      break;
    bool more = false;
    uint32_t run_start = count;
    for (;;) {
      unw_word_t ip = 0, sp = 0, bp = 0;
      if (unw_get_reg(&cursor, UNW_REG_IP, &ip) != 0 || ip == 0) break;
      if (!has_unwind_info(cursor, ip)) {  // JIT-compiled code again: back to the frame-pointer chain
        unw_get_reg(&cursor, UNW_REG_SP, &sp);
        unw_get_reg(&cursor, UNW_X86_64_RBP, &bp);
        r = {uintptr_t(ip), uintptr_t(sp), uintptr_t(bp)};
        more = sp != 0;
        by_frame_pointer = count == run_start;  // the run's very first frame: libunwind cannot start here
        break;
      }
      if (count == NativeCapture::kMaxFrames) {
        truncated = true;
        break;
      }
      capture.frames[count++] = uintptr_t(ip);
      if (unw_step(&cursor) <= 0) break;
    }
    signal_frame = false;
    if (!more || truncated) break;
  }
  capture.count = count;
  capture.stop_ip = stop_ip;
  capture.truncated = truncated;
}

}  // namespace umbra
