// Where a whole stack taken by signal ended (snapshot/whole_stack_unwind.h): at the thread's start, or earlier, for
// a named reason. A stack that stopped early is kept, under the marker root "[stack incomplete]", and counted by its
// reason (stats.sampler.incomplete_stacks). A reason without a name fails to compile.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace umbra {

enum class StackEnd : uint8_t {
  kThreadStart,    // libunwind found the stack's end (the unwind information of clone3, start_thread or _start)
  kTruncated,      // more frames than the capture holds: the outermost ones were lost
  kNoFrameRecord,  // a JIT-compiled frame the frame-pointer chain cannot leave, and no native caller's return
                   // address on top of it within reach
  kUnwindFailed,   // libunwind could not start, or could not step from a native frame (not at a stack's end)
  kCount
};

inline constexpr size_t kStackEndCount = static_cast<size_t>(StackEnd::kCount);

inline constexpr std::array<std::string_view, kStackEndCount> kStackEndNames = {
    "thread_start", "truncated", "no_frame_record", "unwind_failed",
};
static_assert(static_cast<size_t>(StackEnd::kThreadStart) == 0, "the reasons a stack is incomplete follow it");

}  // namespace umbra
