// Small shadow-stack limits for unit tests: a real reservation, but only a megabyte or a few.
#pragma once

#include "hooks/thread_shadow.h"

namespace umbra::testing {

inline ShadowLimits small_limits(uint32_t depth = 64, size_t node_bytes = size_t(1) << 20) {
  ShadowLimits limits;
  limits.max_depth = depth;
  limits.node_bytes = node_bytes;
  return limits;
}

}  // namespace umbra::testing
