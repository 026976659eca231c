// The CPU time a thread of this process has used, read from another thread: one clock_gettime on the thread's
// CPU clock, which includes the time of a slice still running. The sampler compares two readings to learn that a
// thread has not run in between, so its stack cannot have changed.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>

namespace umbra {

std::optional<uint64_t> thread_cpu_ns(pid_t tid);
// The calling thread's own CPU time.
uint64_t current_thread_cpu_ns();

}  // namespace umbra
