#include "sampler/shadow_sampling.h"

namespace umbra {

uint64_t sample_shadows(const ShadowPool& pool) {
  uint64_t samples = 0;
  pool.for_each_claimed([&](ThreadShadow& s) {
    if (s.retired.load(std::memory_order_acquire)) return;
    CallNode* node = s.current_node();
    if (node == &s.root()) return;  // no managed frame on the shadow stack: nothing to attribute
    // The owner never writes self_samples; the sampler is its only writer.
    node->self_samples.store(node->self_samples.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    ++samples;
  });
  return samples;
}

}  // namespace umbra
