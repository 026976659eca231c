// Small shadow-stack limits for unit tests (a real reservation, but only a megabyte or a few), and the calls a
// tree holds.
#pragma once

#include "hooks/thread_shadow.h"

namespace umbra::testing {

inline ShadowLimits small_limits(uint32_t depth = 64, size_t node_bytes = size_t(1) << 20) {
  ShadowLimits limits;
  limits.max_depth = depth;
  limits.node_bytes = node_bytes;
  return limits;
}

// Calls of every node of the tree under `node`, `node` included.
inline uint64_t sum_calls(const CallNode& node) {
  uint64_t total = node.calls();
  for (const CallNode* c = node.first_child_acquire(); c; c = c->next_sibling) total += sum_calls(*c);
  return total;
}

}  // namespace umbra::testing
