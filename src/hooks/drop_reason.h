// Everything the hooks cannot record is counted under one of these names and reported in stats.drops.
// Adding a reason without a name fails to compile (kDropReasonNames has exactly kDropReasonCount entries).
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace umbra {

enum class DropReason : size_t {
  kStackOverflow,         // a frame deeper than the shadow stack's capacity (its calls are not in the tree)
  kTreeFull,              // the thread's node reservation is exhausted; calls counted under one collector node,
                          // their time left in the caller's self time
  kNoThreadState,         // a hook on a thread for which no prepared state was available
  kUnmatchedLeave,        // a leave/tailcall/unwind for a function that is not on the shadow stack
  kStaleFramePopped,      // frames above a matched leave that never got their own leave
  kCount
};

inline constexpr size_t kDropReasonCount = static_cast<size_t>(DropReason::kCount);

inline constexpr std::array<std::string_view, kDropReasonCount> kDropReasonNames = {
    "stack_overflow", "tree_full", "no_thread_state", "unmatched_leave", "stale_frame_popped",
};

}  // namespace umbra
