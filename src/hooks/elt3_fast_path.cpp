// The ELT3 trampolines' second path, for what their assembly declined: an enter into a node that exists (found by
// a search among the parent's children, or the callee of a tail call), a leave or tail call of the function on top
// of the stack while the hooks read the exact clock, done without saving the vector registers.
//
// This file is compiled with -mno-sse -mno-mmx (-mgeneral-regs-only would reject the standard headers' long double
// functions), so nothing here touches a vector register; x87 instructions are still possible, and the check below
// rejects them. The functions call nothing (everything they use is always inlined;
// tests/tools/check_fast_path_calls_nothing.sh checks the built library after every link): the trampolines save
// only the general scratch registers around them. Sanitizers instrument every access with calls, so their builds
// never take the fast path: the slow path does the work.
#include "hooks/shadow_hooks.h"
#include "hooks/thread_shadow.h"
#include "hooks/tick_clock.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UMBRA_NO_ELT3_FAST_PATH 1
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define UMBRA_NO_ELT3_FAST_PATH 1
#endif
#endif

namespace {
#ifdef UMBRA_NO_ELT3_FAST_PATH
constexpr bool kFastPath = false;
#else
constexpr bool kFastPath = true;
#endif
}  // namespace

extern "C" {

const bool umbra_elt3_fast_path_built = kFastPath;

bool umbra_elt3_try_enter(umbra::clr::FunctionIDOrClientID function) {
  umbra::ThreadShadow* shadow = umbra::hooks::t_shadow;
  return kFastPath && shadow != nullptr && shadow->try_enter(function, umbra::hook_ticks());
}

bool umbra_elt3_try_leave(umbra::clr::FunctionIDOrClientID function) {
  umbra::ThreadShadow* shadow = umbra::hooks::t_shadow;
  return kFastPath && shadow != nullptr && shadow->try_leave(function, umbra::hook_ticks());
}

bool umbra_elt3_try_tailcall(umbra::clr::FunctionIDOrClientID function) {
  umbra::ThreadShadow* shadow = umbra::hooks::t_shadow;
  return kFastPath && shadow != nullptr && shadow->try_tailcall(function, umbra::hook_ticks());
}

}  // extern "C"
