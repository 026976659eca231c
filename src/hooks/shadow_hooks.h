// The enter/leave/tailcall hooks of both families and the per-thread pointer they use.
//
// Contract: the hook functions run on every managed call of every thread, in the runtime's cooperative mode.
// They never block, allocate, log or throw. Each touches only its own thread's ThreadShadow (found through a
// thread_local pointer; claimed from the ShadowPool on the thread's first hook).
//
// Families: ELT2 hooks are ordinary functions the runtime calls through its own register-saving stub (and through
// a slower path that builds frame information once stack snapshots are enabled). ELT3 hooks are called by the JIT
// directly: the registered functions are the assembly trampolines in elt3_trampolines.S, which do the common cases
// themselves and call the functions below for the rest.
#pragma once

#include "clr/corprof.h"
#include "hooks/shadow_pool.h"

namespace umbra::hooks {

// Where a thread's runtime ThreadID comes from when it claims its shadow (0 if unknown).
using CurrentThreadIdFn = clr::ThreadID (*)();

void install_pool(ShadowPool* pool, CurrentThreadIdFn current_thread_id);

void on_enter2(clr::FunctionID, clr::UINT_PTR, clr::COR_PRF_FRAME_INFO, clr::COR_PRF_FUNCTION_ARGUMENT_INFO*);
void on_leave2(clr::FunctionID, clr::UINT_PTR, clr::COR_PRF_FRAME_INFO, clr::COR_PRF_FUNCTION_ARGUMENT_RANGE*);
void on_tailcall2(clr::FunctionID, clr::UINT_PTR, clr::COR_PRF_FRAME_INFO);
// The ELT2 floor for benchmarks: hooks that return at once.
void noop_enter2(clr::FunctionID, clr::UINT_PTR, clr::COR_PRF_FRAME_INFO, clr::COR_PRF_FUNCTION_ARGUMENT_INFO*);
void noop_leave2(clr::FunctionID, clr::UINT_PTR, clr::COR_PRF_FRAME_INFO, clr::COR_PRF_FUNCTION_ARGUMENT_RANGE*);
void noop_tailcall2(clr::FunctionID, clr::UINT_PTR, clr::COR_PRF_FRAME_INFO);

// The calling thread's shadow once its first hook has claimed one. initial-exec: a direct %fs-relative load
// instead of a __tls_get_addr call on every hook; __thread, not thread_local: no initialization wrapper to call.
// Named umbra_t_shadow for the assembly fast path (elt3_trampolines.S).
extern __thread ThreadShadow* t_shadow asm("umbra_t_shadow") __attribute__((tls_model("initial-exec")));

// The calling thread's shadow, claiming one if it has none yet (nullptr if none could be had).
ThreadShadow* current_shadow();
// The calling thread's shadow if it has one; does not claim.
ThreadShadow* existing_shadow();
// Forgets the calling thread's shadow (its managed thread is gone; a later managed thread here gets a new one).
void release_current_shadow();
// Hooks that ran on a thread with no shadow available.
uint64_t unattributed_hooks();

}  // namespace umbra::hooks

extern "C" {
// ELT3 trampolines (assembly): the functions registered with SetEnterLeaveFunctionHooks3.
void umbra_elt3_enter(umbra::clr::FunctionIDOrClientID);
void umbra_elt3_leave(umbra::clr::FunctionIDOrClientID);
void umbra_elt3_tailcall(umbra::clr::FunctionIDOrClientID);
// The ELT3 floor for benchmarks: a bare return.
void umbra_elt3_noop(umbra::clr::FunctionIDOrClientID);
// The trampolines' fast path (elt3_fast_path.cpp): the common enter, leave or tail call, or false having changed
// nothing.
// Compiled without vector instructions and calling nothing, so they clobber only general scratch registers.
bool umbra_elt3_try_enter(umbra::clr::FunctionIDOrClientID);
bool umbra_elt3_try_leave(umbra::clr::FunctionIDOrClientID);
bool umbra_elt3_try_tailcall(umbra::clr::FunctionIDOrClientID);
// How wide the vector registers are that the trampolines' slow path saves: 0 xmm, 1 ymm (AVX), 2 zmm (AVX-512F),
// each only where the CPU and the kernel both support it. Set when the library loads, before any hook runs; tests
// lower it to reach the narrower paths.
extern uint8_t umbra_hook_vector_width;
// False where the fast path is compiled out (sanitizer builds): the functions above then always answer false.
extern const bool umbra_elt3_fast_path_built;
// The slow path: what the trampolines call, with every register the managed code needs already saved.
void umbra_elt3_on_enter(umbra::clr::FunctionIDOrClientID);
void umbra_elt3_on_leave(umbra::clr::FunctionIDOrClientID);
void umbra_elt3_on_tailcall(umbra::clr::FunctionIDOrClientID);
}
