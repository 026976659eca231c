// Shadow mode's samples: one per tick on each live thread's current shadow node. No suspension: a node's path is
// immutable once published, so the current node is the thread's whole managed stack. A sample taken while its
// thread is on a CPU counts as a CPU sample too (snapshot/scheduler_states.h: one clock read per thread, and a /proc
// read for each thread that has run since the last tick).
// Contract: the sampler thread only; no allocation, lock or log.
#pragma once

#include <cstdint>

#include "hooks/shadow_pool.h"
#include "snapshot/scheduler_states.h"

namespace umbra {

// Returns the number of samples counted (threads with a managed frame on their shadow stack).
uint64_t sample_shadows(const ShadowPool& pool, SchedulerStates& states);

// Whether the shadow's thread is on a CPU now, from the CPU time read at its previous sample (which this updates).
bool shadow_thread_on_cpu(ThreadShadow& shadow, SchedulerStates& states);
// One sample on `node`, a CPU sample too if `on_cpu` (the CPU count saturates). The sampler is the nodes' only
// writer of sample counts.
void add_node_sample(CallNode& node, bool on_cpu);

}  // namespace umbra
