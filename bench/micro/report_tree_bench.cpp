// The report's conversion of a large shadow tree (what the exit spends most of its time on), in isolation: a tree
// grown the way a long-running program grows one, its nodes made in an order unrelated to the tree's, then
// converted into the report's model, alone and with a helper.
#include <benchmark/benchmark.h>

#include <optional>
#include <random>
#include <string>
#include <vector>

#include "hooks/thread_shadow.h"
#include "merge/tree_builder.h"
#include "util/shared_work.h"

namespace umbra {
namespace {

// Walks from the root down random paths until the tree holds `nodes` nodes: most calls go to one of a few
// callees (paths repeat and grow deep), some to one of thousands (nodes are added everywhere, at any time).
void grow(ThreadShadow& shadow, size_t nodes) {
  std::mt19937_64 random(42);
  std::vector<clr::FunctionID> path;
  while (shadow.node_count() < nodes) {
    const size_t depth = 1 + random() % 48;
    for (size_t d = 0; d < depth; ++d) {
      clr::FunctionID f = 1 + (random() % 8 == 0 ? random() % 5000 : random() % 3);
      shadow.enter(f, 0);
      path.push_back(f);
    }
    for (; !path.empty(); path.pop_back()) shadow.leave(path.back(), 0);
  }
}

// Grown once for all the benchmarks that ask for the same size.
const ThreadShadow& grown_tree(size_t nodes) {
  static ThreadShadow* shadow = nullptr;
  static size_t grown_for = 0;
  if (shadow == nullptr || grown_for != nodes) {
    ShadowLimits limits;
    limits.max_depth = 1024;
    limits.node_bytes = nodes * 2 * kNodeBytes;
    delete shadow;
    shadow = new ThreadShadow(limits);
    grow(*shadow, nodes);
    grown_for = nodes;
  }
  return *shadow;
}

void BM_BuildRoots(benchmark::State& state) {
  const ThreadShadow& shadow = grown_tree(size_t(state.range(0)));
  const NameLookup names = [](clr::FunctionID f) { return FunctionName{"M" + std::to_string(f), "Bench.dll"}; };
  std::optional<SharedWork> work;
  if (state.range(1) > 0) work.emplace(unsigned(state.range(1)));
  for (auto _ : state) {
    auto roots = build_roots(shadow.root(), names, 1.0, {}, nullptr, nullptr, nullptr, nullptr, nullptr,
                             work ? &*work : nullptr);
    benchmark::DoNotOptimize(roots.data());
    state.PauseTiming();  // the exit leaves its model to the process's end
    roots = {};
    state.ResumeTiming();
  }
  state.counters["per_node"] =
      benchmark::Counter(double(state.iterations()) * double(shadow.node_count()),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_BuildRoots)->ArgNames({"nodes", "helpers"})->Args({1 << 20, 0})->Args({1 << 20, 1})
    ->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace umbra
