// Every tick, thread or frame the sampler could not capture is counted under one of these names
// (stats.sampler.drops). A reason without a name fails to compile.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace umbra {

enum class SampleDrop : size_t {
  kSuspensionInProgress,  // SuspendRuntime: a GC or another suspension was running; the tick was skipped
  kSuspendFailed,         // SuspendRuntime failed otherwise; the tick was skipped
  kEnumThreadsFailed,     // EnumThreads failed; the tick was skipped
  kThreadNotYetKnown,     // a thread first seen in this tick; sampled from the next one
  kThreadDying,           // its ThreadDestroyed had begun
  kSnapshotUnsafe,        // DoStackSnapshot: the thread was in a region the runtime cannot walk
  kSnapshotFailed,        // DoStackSnapshot failed otherwise
  kNoFrames,              // the walk found no frame (a thread with no managed code on it yet)
  kFramesTruncated,       // the tick's frame buffer was full; the deepest frames were lost
  kNativeTopTimeout,      // the thread did not answer the signal in time (or was still answering an earlier one)
  kNativeTopStale,        // the thread left native code between signal and suspension (sampled without it)
  kNativeTopFault,        // unwinding its native top faulted (a corrupt stack); sampled without it
  kLoaderBusy,            // the signal found it inside dlopen/dlclose changing the loader's objects: not unwound
  kCount
};

inline constexpr size_t kSampleDropCount = static_cast<size_t>(SampleDrop::kCount);

inline constexpr std::array<std::string_view, kSampleDropCount> kSampleDropNames = {
    "suspension_in_progress", "suspend_failed", "enum_threads_failed", "thread_not_yet_known", "thread_dying",
    "snapshot_unsafe",        "snapshot_failed", "no_frames",          "frames_truncated",     "native_top_timeout",
    "native_top_stale",       "native_top_fault",  "loader_busy",
};

}  // namespace umbra
