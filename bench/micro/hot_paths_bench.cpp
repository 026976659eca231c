// The hot pieces in isolation (Google Benchmark): the per-call work of the hooks, what a shadow sample reads,
// and native unwinding against a no-op baseline. Run by tools/bench.sh; numbers go to bench/RESULTS.md.
#include <benchmark/benchmark.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include <vector>

#include "hooks/shadow_hooks.h"
#include "hooks/thread_shadow.h"
#include "hooks/tick_clock.h"

namespace umbra {
namespace {

ShadowLimits bench_limits() {
  ShadowLimits limits;
  limits.max_depth = 1u << 14;
  limits.node_bytes = size_t(64) << 20;
  return limits;
}

void BM_ReadTicks(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(read_ticks());
}
BENCHMARK(BM_ReadTicks);

// One call's shadow work on the common path: the child is the parent's last-entered one.
void BM_EnterLeave(benchmark::State& state) {
  ThreadShadow shadow(bench_limits());
  shadow.enter(1, 0);
  for (auto _ : state) {
    shadow.enter(2, read_ticks());
    shadow.leave(2, read_ticks());
  }
}
BENCHMARK(BM_EnterLeave);

// The same without time stamps: what the tree and stack updates cost alone.
void BM_EnterLeaveNoClock(benchmark::State& state) {
  ThreadShadow shadow(bench_limits());
  shadow.enter(1, 0);
  for (auto _ : state) {
    shadow.enter(2, 0);
    shadow.leave(2, 0);
  }
}
BENCHMARK(BM_EnterLeaveNoClock);

// A caller that alternates between N callees: the tree update searches the siblings.
void BM_EnterLeaveAmongSiblings(benchmark::State& state) {
  ThreadShadow shadow(bench_limits());
  const auto siblings = clr::FunctionID(state.range(0));
  shadow.enter(1, 0);
  clr::FunctionID next = 0;
  for (auto _ : state) {
    clr::FunctionID f = 2 + next;
    next = next + 1 == siblings ? 0 : next + 1;
    shadow.enter(f, read_ticks());
    shadow.leave(f, read_ticks());
  }
}
BENCHMARK(BM_EnterLeaveAmongSiblings)->Arg(2)->Arg(8)->Arg(64);

// The whole ELT3 hook pair as the JIT calls it: trampoline, thread-local lookup, shadow update; and the floor
// (a bare return). Built with -mno-red-zone, so a call from inline assembly clobbers nothing the compiler keeps.
clr::ThreadID bench_thread_id() { return 1; }

template <void (*Enter)(clr::FunctionIDOrClientID), void (*Leave)(clr::FunctionIDOrClientID), bool Exact>
void BM_Elt3HookPair(benchmark::State& state) {
  g_hook_clock.exact.store(Exact);  // coarse: the value CoarseClock would publish, without its thread
  ShadowPool pool(bench_limits());
  pool.prepare(1);
  hooks::install_pool(&pool, &bench_thread_id);
  const clr::FunctionID function = 2;
  for (auto _ : state) {
    asm volatile("mov %0, %%r14\n\tcall *%1" : : "r"(function), "r"(Enter) : "r14", "memory");
    asm volatile("mov %0, %%rdi\n\tcall *%1" : : "r"(function), "r"(Leave) : "rdi", "memory");
  }
  hooks::release_current_shadow();
  hooks::install_pool(nullptr, nullptr);
  g_hook_clock.exact.store(true);
}
BENCHMARK(BM_Elt3HookPair<umbra_elt3_enter, umbra_elt3_leave, false>)->Name("BM_Elt3HookPair");
BENCHMARK(BM_Elt3HookPair<umbra_elt3_enter, umbra_elt3_leave, true>)->Name("BM_Elt3HookPairExactTimes");
BENCHMARK(BM_Elt3HookPair<umbra_elt3_noop, umbra_elt3_noop, true>)->Name("BM_Elt3HookPairFloor");

// Through the trampolines, with the coarse clock (the assembly fast path): a caller that calls N callees, in the
// same order every time (each found as the successor of the one before) or in a random order (the parent's last
// child, else a search among its children), and ends with a tail call of one of them (counted as a tail entry).
void BM_Elt3CallsAmongSiblings(benchmark::State& state) {
  g_hook_clock.exact.store(false);
  ShadowPool pool(bench_limits());
  pool.prepare(1);
  hooks::install_pool(&pool, &bench_thread_id);
  const auto siblings = size_t(state.range(0));
  const bool random_order = state.range(1) != 0;
  std::vector<clr::FunctionID> order;
  uint64_t seed = 1;
  for (size_t i = 0; i < 4096; ++i) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    order.push_back(0x1000 + 8 * (random_order ? (seed >> 33) % siblings : i % siblings));
  }
  auto enter = [](clr::FunctionID f) { asm volatile("mov %0, %%r14\n\tcall umbra_elt3_enter" : : "r"(f) : "r14", "memory"); };
  auto leave = [](clr::FunctionID f) { asm volatile("mov %0, %%rdi\n\tcall umbra_elt3_leave" : : "r"(f) : "rdi", "memory"); };
  auto tailcall = [](clr::FunctionID f) {
    asm volatile("mov %0, %%rdi\n\tcall umbra_elt3_tailcall" : : "r"(f) : "rdi", "memory");
  };
  enter(1);
  size_t i = 0;
  uint64_t ticks = 0;
  for (auto _ : state) {
    // The clock moves every 64 calls (a 1 ms clock moves far less often), so that leaves charge time too.
    if ((i & 63) == 0) g_hook_clock.coarse_ticks.store(++ticks, std::memory_order_relaxed);
    clr::FunctionID f = order[i++ & 4095];
    enter(f);
    if ((i & 7) == 0) {  // one call in 8 ends with a tail call of the next callee
      tailcall(f);
      f = order[i & 4095];
      enter(f);
    }
    leave(f);
  }
  leave(1);
  hooks::release_current_shadow();
  hooks::install_pool(nullptr, nullptr);
  g_hook_clock.exact.store(true);
}
BENCHMARK(BM_Elt3CallsAmongSiblings)->ArgNames({"siblings", "random"})->Args({8, 0})->Args({8, 1})->Args({64, 0})
    ->Args({64, 1})->Args({1024, 1});

// Filling a stack of `depth` frames, so the benchmarks below read a real one.
void fill(ThreadShadow& shadow, int64_t depth) {
  for (int64_t i = 0; i < depth; ++i) shadow.enter(clr::FunctionID(100 + i), 0);
}

// What a shadow sample reads per thread: one published node, whatever the depth.
void BM_ShadowSample(benchmark::State& state) {
  ThreadShadow shadow(bench_limits());
  fill(shadow, state.range(0));
  for (auto _ : state) {
    CallNode* node = shadow.current_node();
    node->self_samples.store(node->self_samples.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
}
BENCHMARK(BM_ShadowSample)->Arg(10)->Arg(100)->Arg(1000);

// Copying the stack instead (what reconciliation reads, and what a sampler without node pointers would copy).
void BM_CopyShadowStack(benchmark::State& state) {
  ThreadShadow shadow(bench_limits());
  fill(shadow, state.range(0));
  std::vector<clr::FunctionID> copy(size_t(state.range(0)));
  for (auto _ : state) {
    uint32_t d = shadow.depth();
    for (uint32_t i = 0; i < d; ++i) copy[i] = shadow.frame_function(i);
    benchmark::DoNotOptimize(copy.data());
  }
}
BENCHMARK(BM_CopyShadowStack)->Arg(10)->Arg(100)->Arg(1000);

// Native unwinding with libunwind from `depth` frames down, against recursing to the same depth alone.
__attribute__((noinline)) int unwind_from_depth(int depth, bool unwind) {
  if (depth > 0) {
    int r = unwind_from_depth(depth - 1, unwind);
    benchmark::DoNotOptimize(r);
    return r + 1;
  }
  if (!unwind) return 0;
  unw_context_t context;
  unw_cursor_t cursor;
  unw_getcontext(&context);
  unw_init_local(&cursor, &context);
  int frames = 0;
  while (unw_step(&cursor) > 0) ++frames;
  return frames;
}

void BM_NativeUnwind(benchmark::State& state) {
  unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
  for (auto _ : state) benchmark::DoNotOptimize(unwind_from_depth(int(state.range(0)), true));
}
BENCHMARK(BM_NativeUnwind)->Arg(10)->Arg(50)->Arg(200);

void BM_NativeUnwindBaseline(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(unwind_from_depth(int(state.range(0)), false));
}
BENCHMARK(BM_NativeUnwindBaseline)->Arg(10)->Arg(50)->Arg(200);

}  // namespace
}  // namespace umbra

BENCHMARK_MAIN();
