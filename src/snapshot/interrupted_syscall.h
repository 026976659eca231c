// A signal handler makes some blocked system calls fail with EINTR, SA_RESTART or not: poll, select, epoll_wait,
// nanosleep and clock_nanosleep, sigtimedwait, io_getevents, System V IPC, and socket calls that may have a timeout
// (signal(7), "Interruption of system calls and library functions by signal handlers"). Code that treats EINTR as
// an error would fail because umbra's sampling signal arrived. So the handler puts such a call back, as the kernel
// does for SA_RESTART: a sleep goes on for the time it had left when the call says where it wrote it (nanosleep's
// and clock_nanosleep's remaining time, or an absolute deadline); any other timeout starts again from its whole
// length, so a wait with a timeout can last longer by the time it had waited when the signal came (the sampler
// signals a blocked thread once, at the first tick after it blocked, since a thread that has not run is not asked
// again).
#pragma once

namespace umbra {

// In a signal handler, with its ucontext, before restart_call_failed_by_handler changes it: whether the signal came
// while the thread was blocked in a system call, so off its CPU. The kernel then made the call fail with EINTR (RAX
// is -EINTR just past a `syscall` instruction) or set it up to be made again (RIP back on the instruction). A thread
// blocked where signals wait (disk I/O) answers only once it has left the call, as a running thread. No lock, no
// allocation: async-signal-safe.
bool interrupted_in_a_system_call(const void* ucontext);

// Whether the kernel fails system call `number` with EINTR after a signal handler, SA_RESTART or not.
bool fails_with_eintr_after_a_handler(long number);

// In a signal handler, with its ucontext: if the handler interrupted one of those calls (the kernel made it return
// EINTR: RAX is -EINTR just past a `syscall` instruction), sets the context back to make the call again when the
// handler returns. The call's number is read from the `mov $number, %eax` before the instruction, as libc's
// wrappers write it; a call made otherwise is left failed. True if the call will run again. Async-signal-safe.
bool restart_call_failed_by_handler(void* ucontext);

}  // namespace umbra
