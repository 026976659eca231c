// Asks the scheduler to run the calling thread promptly when it wakes, for umbra's sampler: a sampler that shares a
// CPU with a busy thread otherwise waits for that thread's time slice to end, and its ticks land where the busy
// thread blocks (measured: a thread computing 39% of the time got 23% of its samples in the computing method, the
// sampler's ticks 220 us late on average). Linux 6.12 and later let an ordinary thread ask for a short time slice
// (sched_setattr's sched_runtime under SCHED_OTHER), which lets it preempt the running thread when it wakes; the
// thread's CPU time is unchanged. Earlier kernels accept and ignore the request.
// Contract: the calling thread only; allocates only to say why it was refused.
#pragma once

#include <string>

namespace umbra {

// True if the kernel took the request; otherwise `why` says what it answered (the scheduling policy is not the
// ordinary one, or the call failed).
bool prefer_prompt_wakeups(std::string& why);

}  // namespace umbra
