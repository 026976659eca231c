// The ELT3 trampolines' fast path: the common enter (a loop re-entering the node it just left) and the common leave
// (the function on top of the stack returns), done without saving the vector registers.
//
// This file is compiled with -mno-sse -mno-mmx, so nothing here touches a vector register, and the functions call
// nothing (ThreadShadow's try_enter/try_leave are always inlined; the ctest hooks.fast_path_calls_nothing checks the
// built library): the trampolines save only the general scratch registers around them. Sanitizer builds instrument
// every access with calls, so there the fast path always answers false and the slow path does the work.
#include "hooks/shadow_hooks.h"
#include "hooks/thread_shadow.h"
#include "hooks/tick_clock.h"

extern "C" {

bool umbra_elt3_try_enter(umbra::clr::FunctionIDOrClientID function) {
#ifdef UMBRA_NO_ELT3_FAST_PATH
  return false;
#else
  umbra::ThreadShadow* shadow = umbra::hooks::t_shadow;
  return shadow != nullptr && shadow->try_enter(function, umbra::hook_ticks());
#endif
}

bool umbra_elt3_try_leave(umbra::clr::FunctionIDOrClientID function) {
#ifdef UMBRA_NO_ELT3_FAST_PATH
  return false;
#else
  umbra::ThreadShadow* shadow = umbra::hooks::t_shadow;
  return shadow != nullptr && shadow->try_leave(function, umbra::hook_ticks());
#endif
}

}  // extern "C"
