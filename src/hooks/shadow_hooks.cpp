#include "hooks/shadow_hooks.h"

#include <atomic>

#include "hooks/tick_clock.h"

namespace umbra::hooks {

__thread ThreadShadow* t_shadow = nullptr;

namespace {

std::atomic<ShadowPool*> g_pool{nullptr};
std::atomic<CurrentThreadIdFn> g_current_thread_id{nullptr};
std::atomic<uint64_t> g_unattributed{0};

__attribute__((noinline)) ThreadShadow* claim_shadow() {
  ShadowPool* pool = g_pool.load(std::memory_order_acquire);
  if (pool == nullptr || pool->prepared_count() == 0) {
    g_unattributed.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  CurrentThreadIdFn current_thread_id = g_current_thread_id.load(std::memory_order_acquire);
  clr::ThreadID id = current_thread_id ? current_thread_id() : 0;
  ThreadShadow* shadow = pool ? pool->claim(id) : nullptr;
  if (shadow == nullptr) {
    g_unattributed.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  t_shadow = shadow;
  return shadow;
}

inline ThreadShadow* current_shadow_inline() {
  ThreadShadow* shadow = t_shadow;
  return __builtin_expect(shadow != nullptr, 1) ? shadow : claim_shadow();
}

// What every hook of both families does: the calling thread's shadow records the event at the hooks' clock.
inline void hook_enter(clr::FunctionID function) {
  if (ThreadShadow* shadow = current_shadow_inline()) shadow->enter(function, hook_ticks());
}
inline void hook_leave(clr::FunctionID function) {
  if (ThreadShadow* shadow = current_shadow_inline()) shadow->leave(function, hook_ticks());
}
inline void hook_tailcall(clr::FunctionID function) {
  if (ThreadShadow* shadow = current_shadow_inline()) shadow->tailcall(function, hook_ticks());
}

}  // namespace

void install_pool(ShadowPool* pool, CurrentThreadIdFn current_thread_id) {
  g_current_thread_id.store(current_thread_id, std::memory_order_release);
  g_pool.store(pool, std::memory_order_release);
}

ThreadShadow* current_shadow() { return current_shadow_inline(); }

ThreadShadow* existing_shadow() { return t_shadow; }

void release_current_shadow() { t_shadow = nullptr; }

uint64_t unattributed_hooks() { return g_unattributed.load(std::memory_order_relaxed); }

void on_enter2(clr::FunctionID function, clr::UINT_PTR, clr::COR_PRF_FRAME_INFO, clr::COR_PRF_FUNCTION_ARGUMENT_INFO*) {
  hook_enter(function);
}

void on_leave2(clr::FunctionID function, clr::UINT_PTR, clr::COR_PRF_FRAME_INFO, clr::COR_PRF_FUNCTION_ARGUMENT_RANGE*) {
  hook_leave(function);
}

void on_tailcall2(clr::FunctionID function, clr::UINT_PTR, clr::COR_PRF_FRAME_INFO) { hook_tailcall(function); }

void noop_enter2(clr::FunctionID, clr::UINT_PTR, clr::COR_PRF_FRAME_INFO, clr::COR_PRF_FUNCTION_ARGUMENT_INFO*) {}
void noop_leave2(clr::FunctionID, clr::UINT_PTR, clr::COR_PRF_FRAME_INFO, clr::COR_PRF_FUNCTION_ARGUMENT_RANGE*) {}
void noop_tailcall2(clr::FunctionID, clr::UINT_PTR, clr::COR_PRF_FRAME_INFO) {}

}  // namespace umbra::hooks

namespace {
uint8_t widest_vector_registers() {
  __builtin_cpu_init();  // a static initializer may run before the C runtime's own detection
  if (__builtin_cpu_supports("avx512f")) return 2;
  return __builtin_cpu_supports("avx") ? 1 : 0;
}
}  // namespace

extern "C" __attribute__((visibility("hidden"))) uint8_t umbra_hook_vector_width = widest_vector_registers();

// Without a FunctionIDMapper2, FunctionIDOrClientID is the FunctionID.
void umbra_elt3_on_enter(umbra::clr::FunctionIDOrClientID function) { umbra::hooks::hook_enter(function); }
void umbra_elt3_on_leave(umbra::clr::FunctionIDOrClientID function) { umbra::hooks::hook_leave(function); }
void umbra_elt3_on_tailcall(umbra::clr::FunctionIDOrClientID function) { umbra::hooks::hook_tailcall(function); }
