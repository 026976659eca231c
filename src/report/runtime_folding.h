// Folding the runtime's plumbing out of a report's trees, for the formats people read (text, collapsed stacks,
// speedscope, HTML); the JSON report keeps every frame, so that `umbra report` can show either view.
//
// The rules, on native frames only (managed frames and markers are never folded):
// - Plumbing: frames of the runtime and its host (libcoreclr.so, libclrjit.so, libclrgc*.so, libhostfxr.so,
//   libhostpolicy.so, the dotnet host) and libc's start-up functions (__libc_start_main, start_thread, clone...).
// - A run of plumbing frames (a connected part of the tree, from the frame where the run starts down to the first
//   frames that are not plumbing) becomes one frame named after its modules: "[libcoreclr.so]",
//   "[libcoreclr.so+libclrjit.so]". The frames below the run (the managed callback, pthread_cond_wait) hang under it.
// - At a thread's root the run is its start-up: "[native start-up]". There, libc's frames (a thread starts in
//   libc's clone or __libc_start_main, named or not) and an executable's own frames (dotnet or an app host: a
//   module whose name has no ".so") are plumbing too.
// - Everything else stays: the program's own native code, other libraries (zlib, libSystem.Native.so), and libc's
//   work functions, among them the call a wait ends in (pthread_cond_wait, epoll_wait, nanosleep).
// A folded frame counts the samples of every frame it replaced; its time is the run's first frame's.
//
// Not thread-safe; the trees are as deep as the deepest stack: callers run on a large stack
// (util/large_stack.h).
#pragma once

#include <string_view>
#include <vector>

#include "report/report.h"

namespace umbra {

inline constexpr const char* kNativeStartUp = "[native start-up]";

// Whether the frame is the runtime's plumbing wherever it is (the first rule above).
bool is_runtime_plumbing(const ReportFrame& frame);
// Whether the frame is plumbing at a thread's root (the rules above, with libc's and an executable's frames).
bool is_start_up_plumbing(const ReportFrame& frame);

// Folds every thread of `report` in place. The trees must be finished (report/report_tree.h: finish_totals); they
// stay so, since a run folds into a frame with the samples and time it had. Idempotent: a folded frame is no
// plumbing. Returns the runs folded (before those that became one were merged).
uint64_t fold_runtime_frames(Report& report);
uint64_t fold_runtime_frames(std::vector<ReportNode>& roots);

}  // namespace umbra
