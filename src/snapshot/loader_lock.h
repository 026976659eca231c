// The dynamic loader's lock that dl_iterate_phdr holds while it calls its callback (glibc's dl_load_write_lock, a
// recursive mutex). The handler's unwinder (libunwind) calls dl_iterate_phdr; dlclose unmaps an object before it
// takes the object off the list, so the unwinder can read unmapped memory there. The fault guard leaves such a
// fault by siglongjmp, which would leave the lock taken and every later dlopen, dlclose and unwind of the process
// waiting for ever: before it jumps, the guard gives back the holds its thread took since the unwind began.
#pragma once

#include <sys/types.h>

namespace umbra {

// Finds the lock once, on an ordinary thread (not in a handler), before the handler can run: inside a
// dl_iterate_phdr callback, the recursive mutex of the loader's state that names this thread as its owner. False
// if it is not found (a C library laid out otherwise); faults inside dl_iterate_phdr are then not recoverable.
bool find_loader_lock();

// Async-signal-safe: whether thread `self`, interrupted anywhere, may call dl_iterate_phdr: the lock is free, or
// held whole by `self` (recursive). Not while another thread holds it (the wait would be a signal handler's), nor
// while it is between taken and owned, or between disowned and free: the interrupted thread may be the one taking
// or giving it back, and would wait for itself. True when the lock was not found.
bool loader_lock_may_be_taken(pid_t self);

// Async-signal-safe: the thread that holds the lock now; 0 when it is free, between taken and owned, between disowned
// and free, or not found. A holder that is itself inside umbra's handler gives it back without waiting for anyone,
// so another handler may wait for it.
pid_t loader_lock_owner();

// Async-signal-safe: how many times thread `self` holds the lock now (0 when not found).
unsigned loader_lock_holds(pid_t self);

// Async-signal-safe in practice (a futex wake): gives back the holds thread `self` took since it held the lock
// `held_before` times.
void release_loader_lock_to(pid_t self, unsigned held_before);

}  // namespace umbra
