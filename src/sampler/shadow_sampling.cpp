#include "sampler/shadow_sampling.h"

#include <limits>

namespace umbra {

bool shadow_thread_on_cpu(ThreadShadow& shadow, SchedulerStates& states) {
  uint64_t cpu_ns = shadow.sampler_cpu_ns.load(std::memory_order_relaxed);
  bool on_cpu = states.on_cpu(shadow.os_tid, cpu_ns);
  shadow.sampler_cpu_ns.store(cpu_ns, std::memory_order_relaxed);
  return on_cpu;
}

void add_node_sample(CallNode& node, bool on_cpu) {
  // The owner never writes self_samples; the sampler is its only writer.
  node.self_samples.store(node.self_samples.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  uint32_t cpu = node.self_cpu_samples.load(std::memory_order_relaxed);
  if (on_cpu && cpu != std::numeric_limits<uint32_t>::max())
    node.self_cpu_samples.store(cpu + 1, std::memory_order_relaxed);
}

uint64_t sample_shadows(const ShadowPool& pool, SchedulerStates& states) {
  uint64_t samples = 0;
  pool.for_each_claimed([&](ThreadShadow& s) {
    if (s.retired.load(std::memory_order_acquire)) return;
    bool on_cpu = shadow_thread_on_cpu(s, states);
    CallNode* node = s.current_node();
    if (node == &s.root()) return;  // no managed frame on the shadow stack: nothing to attribute
    add_node_sample(*node, on_cpu);
    ++samples;
  });
  return samples;
}

}  // namespace umbra
