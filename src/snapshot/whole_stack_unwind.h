// Unwinds a thread's whole stack from a signal's context, on the thread itself: JIT-compiled frames by the
// frame-pointer chain (on linux-x64 the JIT keeps RBP as a frame pointer in every method with a loop, a call or a
// hook), native runs with libunwind. A frameless leaf (a small method, or one interrupted in its prologue) shows
// its own IP and then skips its caller, whose return address sits at [RSP]; the alignment with the shadow stack
// (sampler/signal_sampling.h) checks for that.
//
// Contract: async-signal-safe (no lock, allocation or log). Stack memory is read only upward from the interrupted
// stack pointer, a frame at a time, within kMaxFrameBytes; a fault while reading is caught by the capture's
// fault guard (native_capture.h).
#pragma once

namespace umbra {

struct NativeCapture;

// Fills capture.frames leaf first (the interrupted IP, then return addresses), capture.count, capture.truncated
// and capture.stop_ip (the first JIT-compiled IP).
void unwind_whole_stack(NativeCapture& capture, void* ucontext);

}  // namespace umbra
