// The CPU time a thread of this process has used, read from another thread: one clock_gettime on the thread's
// CPU clock, which includes the time of a slice still running. The sampler compares two readings to learn that a
// thread has not run in between, so its stack cannot have changed.
// Whether a thread is on a CPU: snapshot/scheduler_states.h.
// Contract: any thread but the one asked about; no allocation, lock or log (never in a signal handler).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>

namespace umbra {

std::optional<uint64_t> thread_cpu_ns(pid_t tid);
// The calling thread's own CPU time, 0 if it cannot be read: one clock_gettime, async-signal-safe (the capture
// handler reads it).
uint64_t current_thread_cpu_ns();

// The scheduler's state letter of a thread of this process ('R', 'S', 'D', ...), or nothing if it cannot be read.
std::optional<char> thread_scheduler_state(pid_t tid);
// The same in two steps, for a caller that keeps the file: /proc/self/task/TID/stat opened (-1 if it cannot be),
// then read from its start, a fresh reading each time (nothing once the thread has ended, or if the descriptor no
// longer holds `tid`'s file). Any process's /proc/PID/stat reads the same way, with its pid.
int open_task_stat(pid_t tid);
std::optional<char> read_scheduler_state(int stat_fd, pid_t tid);

}  // namespace umbra
