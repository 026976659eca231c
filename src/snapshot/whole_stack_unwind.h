// Unwinds a thread's whole stack from a signal's context, on the thread itself: JIT-compiled frames by the
// frame-pointer chain (on linux-x64 the JIT keeps RBP as a frame pointer in every method with a loop, a call or a
// hook), native runs with libunwind, and past a runtime stub libunwind cannot step through, by the stub's frame
// record. A frameless leaf (a small method, or one interrupted in its prologue) shows its own IP and then skips its
// caller, whose return address sits at [RSP] (capture.word_at_sp; the sampler puts it back). A frame record the
// chain skipped (a method replaced on stack, or code that keeps RBP as an ordinary register) is found between two
// records and its return address added, marked in capture.recovered. A callback called by native code (an
// UnmanagedCallersOnly method keeps no frame pointer) is left by its return address into that native code, the first
// such word up from its stack pointer, and the native run below is unwound with libunwind from there.
//
// Contract: async-signal-safe (no lock, allocation or log). Stack memory is read only upward from the interrupted
// stack pointer, a frame at a time, within kMaxFrameBytes (and at most kMaxScanBytes of a frame looking for a skipped
// record or a callback's native caller), and in the slots of the run that ended this thread's stack at an earlier capture, which libunwind read
// then (capture.stack_ends, snapshot/native_run_cache.h); code bytes only inside executable mappings; a fault while reading is caught by the capture's fault guard
// (native_capture.h).
#pragma once

namespace umbra {

struct NativeCapture;

// Fills capture.frames leaf first (the interrupted IP, then return addresses), capture.count, capture.truncated,
// capture.stop_ip (the first JIT-compiled IP) and capture.end: whether the walk reached the thread's start (libunwind
// found the stack's end), or why it stopped before (snapshot/stack_end.h).
void unwind_whole_stack(NativeCapture& capture, void* ucontext);

}  // namespace umbra
