#include "snapshot/whole_stack_unwind.h"

#include <ucontext.h>

#include <algorithm>
#include <cstdint>

#include "snapshot/code_ranges.h"

#include "snapshot/native_capture.h"
#include "snapshot/stack_end.h"
#include "snapshot/unwind_info.h"
#include "snapshot/unwind_rows.h"

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

// How far up from a frame's stack pointer its return address is looked for when the chain skipped the frame.
constexpr uintptr_t kMaxScanBytes = 1024;

// Whether the bytes just before `ret` are a call instruction (x86-64: call rel32; call through a register or
// memory operand, FF /2 in its encodings), as they are before every return address.
__attribute__((no_sanitize("address"))) bool follows_a_call(uintptr_t ret, uintptr_t code_start) {
  if (ret - code_start < 7) return false;
  const uint8_t* p = reinterpret_cast<const uint8_t*>(ret);
  auto reg_is_2 = [](uint8_t modrm) { return ((modrm >> 3) & 7) == 2; };
  if (p[-5] == 0xE8) return true;                                                   // call rel32
  if (p[-2] == 0xFF && (p[-1] & 0xC0) == 0xC0 && reg_is_2(p[-1])) return true;      // call reg
  if (p[-2] == 0xFF && (p[-1] & 0xC0) == 0x00 && reg_is_2(p[-1]) && (p[-1] & 7) != 4 && (p[-1] & 7) != 5)
    return true;                                                                    // call [reg]
  if (p[-3] == 0xFF && (p[-2] & 0xC0) == 0x40 && reg_is_2(p[-2]) && (p[-2] & 7) != 4) return true;  // [reg+d8]
  if (p[-4] == 0xFF && (p[-3] & 0xC0) == 0x40 && reg_is_2(p[-3]) && (p[-3] & 7) == 4) return true;  // [sib+d8]
  if (p[-3] == 0xFF && (p[-2] & 0xC0) == 0x00 && reg_is_2(p[-2]) && (p[-2] & 7) == 4) return true;  // [sib]
  if (p[-6] == 0xFF && (p[-5] & 0xC7) == 0x05 && reg_is_2(p[-5])) return true;      // call [rip+d32]
  if (p[-6] == 0xFF && (p[-5] & 0xC0) == 0x80 && reg_is_2(p[-5]) && (p[-5] & 7) != 4) return true;  // [reg+d32]
  if (p[-7] == 0xFF && (p[-6] & 0xC0) == 0x80 && reg_is_2(p[-6]) && (p[-6] & 7) == 4) return true;  // [sib+d32]
  return false;
}

// A word that looks like a return address: inside an executable mapping, just after a call instruction.
__attribute__((no_sanitize("address"))) bool is_return_address(uintptr_t word) {
  const CodeRange* range = executable_range_of(word);
  return range != nullptr && follows_a_call(word, range->start);
}

// Adds a frame found on the stack rather than by the chain, marked as recovered. False when the capture is full.
bool add_recovered(NativeCapture& capture, uint32_t& count, uintptr_t ip) {
  if (count == capture.capacity()) return false;
  capture.recovered[count / 64] |= uint64_t(1) << (count % 64);
  capture.skipped_caller[count] = 0;
  capture.frames[count++] = ip;
  return true;
}

// A frame record the chain skipped lies between a frame's stack pointer and the record the chain goes to next: a
// saved RBP equal to that next record, then a return address. Two kinds of frame leave one:
// - a method that keeps RBP as an ordinary register (some precompiled code saves it without making it the frame
//   pointer): the record's return address is into its caller, which the chain skips;
// - a method replaced on stack (on-stack replacement: a loop that ran long in unoptimized code goes on in optimized
//   code) keeps its original frame under the new one; the new frame's record holds a return address into the
//   original code (a frame that is not there) and the RBP of the original method's caller, so the chain skips the
//   caller. The original frame's own record returns into that caller.
// The recovered return address is added as a frame and marked (NativeCapture::recovered); the sampler drops the
// frame that is not there (two frames of one method, the second followed by a recovered one). Returns the
// recovered frame's stack pointer (just above its return address), 0 if none was added.
__attribute__((no_sanitize("address"))) uintptr_t add_skipped_record(const Registers& r, NativeCapture& capture,
                                                                     uint32_t& count, bool& truncated) {
  if (r.bp <= r.sp + 8 || (r.sp & 7) != 0) return 0;
  uintptr_t to = r.bp - r.sp > kMaxScanBytes ? r.sp + kMaxScanBytes : r.bp;
  for (uintptr_t at = r.sp + 8; at < to; at += 8) {
    if (*reinterpret_cast<const uintptr_t*>(at - 8) != r.bp) continue;
    uintptr_t word = *reinterpret_cast<const uintptr_t*>(at);
    // Both kinds return into managed code; a return into native code here is what an earlier call left behind
    // (seen: the profiler's own thread-start callback, on a thread that then blocked in a P/Invoke).
    if (!outside_elf_code(word) || !is_return_address(word)) continue;
    if (!add_recovered(capture, count, word)) {
      truncated = true;
      return 0;
    }
    return at + 8;
  }
  return 0;
}

// A frameless leaf (or one in its prologue or epilogue) keeps its return address on top of the stack, above the
// callee-saved registers it pushed: the first word of the few on top that returns into managed code. 0 if none.
constexpr int kLeafWordsToLook = 6;
__attribute__((no_sanitize("address"))) uintptr_t leaf_return_address(uintptr_t sp) {
  if (sp == 0 || (sp & 7) != 0) return 0;
  for (int i = 0; i < kLeafWordsToLook; ++i) {
    uintptr_t word = reinterpret_cast<const uintptr_t*>(sp)[i];
    if (outside_elf_code(word) && is_return_address(word)) return word;
  }
  return 0;
}

// A method without a frame of its own (optimized code that needs none, some precompiled framework code, an
// UnmanagedCallersOnly callback) keeps its return address on top of its frame, below the record the chain goes to
// next, which is its caller's caller's: the chain skips the caller. The first word of the few on top of a managed
// frame that looks like a return address, other than where the chain goes, is that caller if the method has no
// frame; in a method that has one those words are its locals (the sampler tells the two apart). 0 if none; `slot`
// gets the word's address.
__attribute__((no_sanitize("address"))) uintptr_t return_address_on_top(const Registers& frame, uintptr_t chain_ip,
                                                                        uintptr_t& slot) {
  slot = 0;
  if (frame.sp == 0 || (frame.sp & 7) != 0 || frame.bp <= frame.sp) return 0;
  uintptr_t end = std::min(frame.bp, frame.sp + kLeafWordsToLook * 8);
  for (uintptr_t at = frame.sp; at < end; at += 8) {
    uintptr_t word = *reinterpret_cast<const uintptr_t*>(at);
    if (word != chain_ip && is_return_address(word)) {
      slot = at;
      return word;
    }
  }
  return 0;
}

// Whether the bytes just before `ret` are an indirect call (FF /2: through a register or memory), the only way
// native code calls managed code (a function pointer: an UnmanagedCallersOnly method, a marshalled delegate's thunk).
__attribute__((no_sanitize("address"))) bool follows_an_indirect_call(uintptr_t ret) {
  const CodeRange* range = executable_range_of(ret);
  return range != nullptr && follows_a_call(ret, range->start) &&
         reinterpret_cast<const uint8_t*>(ret)[-5] != 0xE8;
}

// A return address into native code that called a managed method by a function pointer: ELF code with unwind
// information (the run below is unwound with libunwind from there), after an indirect call.
bool is_native_callers_return(uintptr_t word) {
  return !outside_elf_code(word) && follows_an_indirect_call(word);
}

// A callback's frame may hold stale copies of its own return address, left by earlier calls made deeper in the
// stack (the caller's frames change size when it is compiled again): the real one is the highest of the copies a
// few words apart, since stale words lie only below it, in the callback's own frame.
__attribute__((no_sanitize("address"))) uintptr_t highest_copy(uintptr_t slot) {
  const uintptr_t word = *reinterpret_cast<const uintptr_t*>(slot);
  uintptr_t highest = slot;
  for (int i = 1; i <= kLeafWordsToLook; ++i)
    if (reinterpret_cast<const uintptr_t*>(slot)[i] == word) highest = slot + 8 * uintptr_t(i);
  return highest;
}

// A managed frame the frame-pointer chain cannot leave: an UnmanagedCallersOnly method keeps no frame pointer (the
// JIT gives it an RSP-based frame), so RBP still holds what its native caller had there, and native code built
// without frame pointers (libc's qsort, most distro libraries) uses RBP as an ordinary register: no record. Its
// return address into that caller is on top of its frame: the first word, up from its stack pointer, that returns
// into native code after an indirect call. Frames between (a method replaced on stack keeps its original frame under
// the new one) are recovered where their record's saved RBP is `frame.bp`, as the chain would have found them.
// Returns the slot of the native return address, 0 if none within kMaxScanBytes.
__attribute__((no_sanitize("address"))) uintptr_t native_caller_slot(const Registers& frame, NativeCapture& capture,
                                                                     uint32_t& count, bool& truncated) {
  if (frame.sp == 0 || (frame.sp & 7) != 0) return 0;
  for (uintptr_t at = frame.sp; at < frame.sp + kMaxScanBytes; at += 8) {
    uintptr_t word = *reinterpret_cast<const uintptr_t*>(at);
    if (is_native_callers_return(word)) return highest_copy(at);
    if (at > frame.sp && *reinterpret_cast<const uintptr_t*>(at - 8) == frame.bp && outside_elf_code(word) &&
        is_return_address(word) && !add_recovered(capture, count, word)) {
      truncated = true;
      return 0;
    }
  }
  return 0;
}

}  // namespace

__attribute__((no_sanitize("address"))) void unwind_whole_stack(NativeCapture& capture, void* ucontext) {
  ucontext_t* interrupted = static_cast<ucontext_t*>(ucontext);
  Registers r{uintptr_t(interrupted->uc_mcontext.gregs[REG_RIP]), uintptr_t(interrupted->uc_mcontext.gregs[REG_RSP]),
              uintptr_t(interrupted->uc_mcontext.gregs[REG_RBP])};
  // Runs kept from another thread's stack (a capture asked of a new thread) are never read.
  const pid_t tid = capture.target_tid.load(std::memory_order_relaxed);
  if (capture.stack_ends_tid != tid) {
    capture.stack_ends.clear();
    capture.stack_ends_tid = tid;
  }
  // A frameless leaf (or one in its prologue) keeps its return address here, where the frame-pointer chain skips it.
  capture.word_at_sp = leaf_return_address(r.sp);
  uint32_t count = 0;
  std::fill(capture.recovered, capture.recovered + capture.capacity() / 64, uint64_t(0));
  uintptr_t stop_ip = 0;
  bool truncated = false;
  StackEnd end = StackEnd::kUnwindFailed;  // what ended the walk unless it was truncated
  bool signal_frame = true;  // the first frame's IP is the interrupted instruction, not a return address
  // Native runs restart libunwind from a copy of the context with the run's first registers: the callee-saved
  // registers other than RBP are stale there, and the CFA rules of ordinary code never read them.
  ucontext_t restart = *interrupted;
  bool by_frame_pointer = false;  // also ELF code that has no unwind information (libunwind would not move)
  bool entered_from_native = false;  // the next managed frame is the one a native run returns into
  // A native run tried from a return address found on top of a managed frame whose chain went on into managed code
  // (a callback whose native caller left RBP alone: the chain skipped the whole native run). Kept only if the run
  // ends in the very frame whose record the chain went to; else the chain's way is taken.
  struct Trial {
    bool active = false;
    uint32_t count = 0;    // frames before the run
    uint32_t managed = 0;  // the callback's frame
    Registers chain{};     // where the chain went
    uintptr_t caller = 0;  // the skipped caller noted for the callback's frame
  } trial;
  while (r.ip != 0) {
    if (by_frame_pointer || outside_elf_code(r.ip)) {
      by_frame_pointer = false;
      if (stop_ip == 0) stop_ip = r.ip;
      if (count == capture.capacity()) {
        truncated = true;
        break;
      }
      const uint32_t managed_index = count;
      capture.frames[count++] = r.ip;
      capture.skipped_caller[managed_index] = 0;
      const uintptr_t recovered_sp = add_skipped_record(r, capture, count, truncated);
      uintptr_t frameless_caller = entered_from_native ? leaf_return_address(r.sp) : 0;
      entered_from_native = false;
      const Registers managed = r;
      if (truncated) break;
      if (!step_frame_pointer(r)) {
        // No record here: a callback called by native code that uses RBP as an ordinary register. (Only where the
        // chain cannot go on at all: a chain going to an address the code table does not know may be going to code
        // the runtime compiled since the mappings were last read, and words further up are then stale.)
        if (frameless_caller != 0 && !add_recovered(capture, count, frameless_caller)) {
          truncated = true;
          break;
        }
        const uintptr_t slot = native_caller_slot(managed, capture, count, truncated);
        if (slot == 0) {
          end = StackEnd::kNoFrameRecord;
          break;
        }
        r = {*reinterpret_cast<const uintptr_t*>(slot), slot + 8, managed.bp};
        signal_frame = false;
        continue;
      }
      // The frame whose callers may have been skipped: the recovered one if any (it lies between this frame's
      // stack pointer and the record the chain went to), else this one.
      const bool recovered = recovered_sp != 0;
      const uint32_t top_index = recovered ? managed_index + 1 : managed_index;
      const Registers top = recovered ? Registers{0, recovered_sp, managed.bp} : managed;
      uintptr_t on_top_slot = 0;
      uintptr_t on_top = return_address_on_top(top, r.ip, on_top_slot);
      if (on_top != frameless_caller && on_top != capture.word_at_sp) capture.skipped_caller[top_index] = on_top;
      // A managed frame without a frame pointer that called into native code (a runtime helper): its return address
      // is on top of its stack, and the chain skipped it, as for a frameless leaf.
      if (frameless_caller != 0 && frameless_caller != r.ip) add_recovered(capture, count, frameless_caller);
      // A callback whose native caller left RBP as it was: the chain went on into managed code past the whole native
      // run. Tried from the native return address on top; see Trial.
      if (!trial.active && frameless_caller == 0 && on_top != 0 && outside_elf_code(r.ip) &&
          is_native_callers_return(on_top)) {
        trial = {true, count, top_index, r, capture.skipped_caller[top_index]};
        capture.skipped_caller[top_index] = 0;
        r = {on_top, highest_copy(on_top_slot) + 8, managed.bp};
      }
      signal_frame = false;
      continue;
    }
    // A run from a managed frame down to the stack's end (the thread's start) is the same at every capture while its
    // return addresses stay in their slots.
    if (!signal_frame && !trial.active) {
      if (const NativeRunCache::Entry* run = capture.stack_ends.find(r.ip, r.sp, r.bp)) {
        for (uint32_t i = 0; i < run->count; ++i) {
          if (count == capture.capacity()) {
            truncated = true;
            break;
          }
          capture.frames[count++] = run->ip[i];
        }
        end = StackEnd::kThreadStart;  // a run is kept only if it ended the stack
        break;
      }
    }
    restart.uc_mcontext.gregs[REG_RIP] = greg_t(r.ip);
    restart.uc_mcontext.gregs[REG_RSP] = greg_t(r.sp);
    restart.uc_mcontext.gregs[REG_RBP] = greg_t(r.bp);
    unw_cursor_t cursor;
    if (unw_init_local2(&cursor, reinterpret_cast<unw_context_t*>(&restart), signal_frame ? UNW_INIT_SIGNAL_FRAME : 0) != 0)
      break;
    NativeRunCache::Entry* run = signal_frame ? nullptr : &capture.stack_ends.begin(r.ip, r.sp, r.bp);
    bool more = false;
    bool stack_ended = false;
    bool exact_lookup = signal_frame;
    uint32_t run_start = count;
    for (;;) {
      unw_word_t ip = 0, sp = 0, bp = 0;
      if (unw_get_reg(&cursor, UNW_REG_IP, &ip) != 0 || ip == 0) {
        stack_ended = true;
        break;
      }
      // JIT-compiled code again: back to the frame-pointer chain.
      if (!remember_row_of(cursor, ip, exact_lookup) &&
          !has_unwind_info(cursor, ip, /*interrupted=*/signal_frame && count == run_start)) {
        unw_get_reg(&cursor, UNW_REG_SP, &sp);
        unw_get_reg(&cursor, UNW_X86_64_RBP, &bp);
        r = {uintptr_t(ip), uintptr_t(sp), uintptr_t(bp)};
        more = sp != 0;
        by_frame_pointer = count == run_start;  // the run's very first frame: libunwind cannot start here
        entered_from_native = count > run_start;
        break;
      }
      if (count == capture.capacity()) {
        truncated = true;
        break;
      }
      capture.frames[count++] = uintptr_t(ip);
      if (run != nullptr && run->count < NativeRunCache::kMaxFrames) {
        unw_get_reg(&cursor, UNW_REG_SP, &sp);
        run->ip[run->count] = uintptr_t(ip);
        run->sp[run->count++] = uintptr_t(sp);
      } else {
        run = nullptr;  // longer than a cache entry holds
      }
      const int step = step_by_remembered_row(cursor, ip, exact_lookup);
      if (step > 0) continue;
      // libunwind cannot go on: the runtime's assembly stubs (the one a thread returns into when the runtime
      // stopped it at a method's return to suspend it) have no unwind information past their own frame. Their
      // frame record still leads to the managed caller.
      unw_get_reg(&cursor, UNW_REG_SP, &sp);
      unw_get_reg(&cursor, UNW_X86_64_RBP, &bp);
      Registers caller{uintptr_t(ip), uintptr_t(sp), uintptr_t(bp)};
      if (step_frame_pointer(caller) && outside_elf_code(caller.ip)) {
        r = caller;
        more = true;
      } else {
        stack_ended = step == 0;  // the frame's unwind information says the stack ends here (not an error)
      }
      break;
    }
    if (trial.active) {
      trial.active = false;
      // The run must end in managed code, in the frame whose record the chain went to: RBP is that record, below
      // the chain's next frame.
      const bool kept = more && !by_frame_pointer && !truncated && outside_elf_code(r.ip) && is_return_address(r.ip) &&
                        r.bp + 16 == trial.chain.sp && r.sp <= r.bp;
      if (!kept) {
        count = trial.count;
        truncated = false;
        stack_ended = false;
        capture.skipped_caller[trial.managed] = trial.caller;
        r = trial.chain;
        more = true;
        by_frame_pointer = false;
        entered_from_native = false;
      }
    }
    if (run != nullptr && stack_ended && !truncated) capture.stack_ends.keep(*run);
    signal_frame = false;
    if (!more || truncated) {
      end = stack_ended ? StackEnd::kThreadStart : StackEnd::kUnwindFailed;
      break;
    }
  }
  capture.count = count;
  capture.stop_ip = stop_ip;
  capture.truncated = truncated;
  capture.end = truncated ? StackEnd::kTruncated : end;
}

}  // namespace umbra
