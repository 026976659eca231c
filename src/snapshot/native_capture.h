// Captures the native frames at the top of a thread's stack, on the thread itself: the sampler queues a signal
// whose value names the thread's NativeCapture by its slot in umbra's table of captures, together with a random
// per-process cookie; the handler unwinds with libunwind from the interrupted context until the first IP without
// unwind information (JIT-compiled code) and publishes the IPs. Asked to go `through_managed`, it walks the whole
// stack instead: JIT-compiled frames by their frame-pointer chain (the JIT keeps RBP as a frame pointer on
// linux-x64), native runs between them with libunwind, and it reads the thread's current shadow node at the same
// moment, so that the stack can be aligned with the shadow stack afterwards.
//
// Contract:
// - The handler is async-signal-safe: it never locks, allocates or logs, and saves errno. Any process can queue a
//   signal with any value (rt_sigqueueinfo): before touching anything the handler checks the cookie, the slot's
//   bounds, that the slot holds a capture requested of this very thread, and its state. Anything else is a no-op.
// - A fault while unwinding (a corrupt stack, a frame's unwind information pointing at unmapped memory) does not
//   kill the program: a SIGSEGV/SIGBUS handler installed with the capture handler returns to the capture, which
//   ends with no frames and `faulted` set; every other fault goes on to the handler that was there before.
// - The requester sleeps once per round, not in a polling loop: the handler that brings the count of outstanding
//   requests to zero wakes it (a futex wake, async-signal-safe). On a machine whose cores are all busy, each
//   wake-up of the requester takes a core from the program.
// - A NativeCapture is never freed while a request is in flight (the owner waits for, or abandons, it).
// - Lock order: none (the handler takes no lock; the sampler holds none while waiting).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>

#include "snapshot/native_run_cache.h"
#include "snapshot/stack_end.h"

namespace umbra {

struct CallNode;
class ThreadShadow;

struct NativeCapture {
  // Every capture holds kFirstFrames at first; one that came out truncated is given room for kMaxFrames (131 KB)
  // and asked again (sampler/signal_sampling.cpp), so that only threads with deep stacks (a recursive parser, a
  // compiler's binder) pay for the room.
  static constexpr uint32_t kFirstFrames = 256;
  static constexpr uint32_t kMaxFrames = 8192;
  static constexpr uint32_t kNoSlot = ~uint32_t(0);

  enum State : uint32_t { kIdle, kRequested, kCapturing, kDone };

  // Takes a slot in the table of captures (the signal's value names it); the destructor frees it. Without a free
  // slot the capture can never be requested (request_native_capture answers false).
  NativeCapture();
  ~NativeCapture();
  NativeCapture(const NativeCapture&) = delete;
  NativeCapture& operator=(const NativeCapture&) = delete;

  const uint32_t slot;
  std::atomic<pid_t> target_tid{0};        // the thread asked: the handler answers only on that thread
  std::atomic<uint32_t> state{kIdle};
  std::atomic<bool> signal_queued{false};  // sent and not yet delivered: no second one is queued behind it
  uint64_t tick = 0;                       // the sampler's tick the request belongs to (sampler only)
  bool through_managed = false;            // set by the requester: the whole stack, not only the native top
  const ThreadShadow* shadow = nullptr;    // set by the requester: the thread's shadow stack, read at the signal
                                           // (nullptr: the thread's own, if it has one by then)
  const CallNode* shadow_node = nullptr;   // the shadow's current node when the stack was taken
  uintptr_t word_at_sp = 0;                // through_managed: a return address into managed code on top of the
                                           // interrupted stack (a frameless leaf's), or 0
  uint32_t count = 0;                // native frames above the first JIT-compiled IP (all frames: through_managed)
  bool truncated = false;            // more frames than the capture holds (capacity())
  bool faulted = false;              // the unwinder faulted; no frames were kept
  bool loader_busy = false;          // not unwound: the dynamic loader was changing its list of objects
  bool signal_blocked = false;       // sampler only: the thread was found with the signal blocked while awaited
  bool in_system_call = false;       // the signal came while the thread was blocked in a system call (off its CPU)
  uintptr_t stop_ip = 0;             // the first IP without unwind information (where managed code begins)
  StackEnd end = StackEnd::kUnwindFailed;  // through_managed: where the walk ended (the thread's start, or why not)
  uint64_t cpu_ns_at_answer = 0;     // the thread's CPU time as its handler finished (0: not read)
  uintptr_t* frames = nullptr;       // capacity() of them
  // through_managed: bit i set when frames[i] was found on the stack between frame records, not by the chain
  // (snapshot/whole_stack_unwind.h).
  uint64_t* recovered = nullptr;     // capacity() / 64 words
  bool is_recovered(uint32_t i) const { return (recovered[i / 64] >> (i % 64)) & 1; }
  // through_managed: for a JIT-compiled frames[i], a return address on top of its frame that the chain did not go
  // to, or 0. If the method keeps no frame of its own, that is its caller, which the chain skipped (the sampler
  // asks the runtime which methods those are: snapshot/whole_stack_unwind.h).
  uintptr_t* skipped_caller = nullptr;  // capacity() of them
  uint32_t capacity() const { return capacity_; }
  // Room for `frames` frames (a multiple of 64, at most kMaxFrames) in the captures from now on. It allocates: the
  // sampler only, outside a suspension, while the capture is idle (no handler can be writing it).
  void hold_frames(uint32_t frames);
  // through_managed: the runs that ended the thread's stack (from its start up to its first managed frame) in
  // recent captures, taken again without libunwind while still on the stack. Only the handler uses it.
  NativeRunCache stack_ends;
  pid_t stack_ends_tid = 0;  // the thread whose stack they were read from

 private:
  uint32_t capacity_ = 0;
  std::unique_ptr<uintptr_t[]> storage_;  // frames, skipped_caller, recovered
};

// Whether the thread that answered `capture` has used no more CPU time since than its return from the handler (its
// CPU time now `cpu_ns_now`): its stack is then still the one taken, and a later tick that finds its CPU time
// unchanged may count that stack again. A thread that ran on after answering may have moved on from it.
bool stood_still_since_answer(const NativeCapture& capture, uint64_t cpu_ns_now);

// Installs the handler on the runtime's activation signal (SIGRTMIN), in front of the runtime's handler, which
// gets every signal umbra did not send: the runtime keeps that signal blocked while a thread is on its small
// alternate signal stack (handling a NullReferenceException), where any other signal could overflow it and end the
// process. Without a handler there to share (no runtime), a free real-time signal (one no other handler uses).
// Returns the signal, or 0 when none is free (native tops are then not captured, and the sampler says so once).
int install_native_capture_handler();

// Puts back the handlers install_native_capture_handler replaced (the capture signal's, SIGSEGV's and SIGBUS's),
// so that umbra's code can be unloaded from the process. Only once nothing can reach the handler any more: no
// request outstanding, no capture running, the signal pending for no thread. False, with nothing changed, when a
// handler installed after umbra's sits on one of those signals (it may call umbra's). Not thread-safe with install.
bool uninstall_native_capture_handler();
// Whether the capture signal is pending (sent, not yet taken) for any thread of the process, as /proc says.
bool native_capture_signal_pending();
// Whether thread `tid` of this process has the capture signal blocked now (SigBlk in /proc/self/task/TID/status).
// Under a suspension, a thread the runtime stopped from its activation handler (a thread interrupted in code it can
// stop anywhere) waits inside that handler, where the signal, which is the capture signal, stays blocked until the
// runtime resumes it. No allocation or lock: callable under a suspension.
bool native_capture_signal_blocked(pid_t tid);
// Whether a thread is inside umbra's capture handler now: it took the signal but has not returned (an answer that
// came too late for its request still runs through the handler, and a thread can be descheduled in it).
bool native_capture_handler_running();

// Replaces the unwinder the handler calls (nullptr restores libunwind's): tests make it fault on purpose, since
// libunwind itself checks most addresses before reading them.
using NativeUnwinder = void (*)(NativeCapture& capture, void* ucontext);
void replace_native_unwinder(NativeUnwinder unwinder);

// Asks thread `tid` of this process to fill `capture` (idle -> requested -> capturing -> done). False if the signal
// could not be sent (the thread is gone); the capture is then idle again.
bool request_native_capture(pid_t tid, NativeCapture& capture);
// What the handler has cost the threads it captured since the library was loaded: its answers, and the CPU time it
// took on those threads from taking a request to answering it (each thread's own clock).
struct CaptureHandlerCost {
  uint64_t answers = 0;
  uint64_t cpu_ns = 0;
};
CaptureHandlerCost capture_handler_cost();

// Withdraws a request the thread has not started on. False if the handler is capturing or has finished.
bool cancel_native_capture(NativeCapture& capture);

// A round of requests, for one requester at a time: begin it before its requests, then wait for their answers.
// An answer from an earlier round that arrives late only wakes the requester early; it never makes it miss one.
void begin_native_capture_round();
uint32_t native_capture_answers();
// Returns when an answer arrives after `seen` was read (at once if one already has), or after `timeout`.
void wait_for_native_capture_answer(uint32_t seen, std::chrono::nanoseconds timeout);

// Sleeps until `pending()` is false, looking again after each answer, or until `deadline`. True if nothing is
// pending any more.
template <typename Pending>
bool wait_for_native_captures(Pending&& pending, std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    uint32_t seen = native_capture_answers();  // before looking: an answer after this ends the wait below
    if (!pending()) return true;
    auto now = std::chrono::steady_clock::now();
    if (now > deadline) return false;
    wait_for_native_capture_answer(seen, deadline - now);
  }
}

}  // namespace umbra
