#include "merge/tree_builder.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>

#include "merge/sampled_tree_builder.h"
#include "shadow_limits.h"

namespace umbra {
namespace {

using testing::small_limits;

FunctionName name_of(clr::FunctionID f) {
  // Two function ids (say, two generic instantiations) share one display name.
  if (f == 0xB1 || f == 0xB2) return {"App.Box`1.Get", "App.dll"};
  return {"App.F" + std::to_string(f), "App.dll"};
}

TEST(TreeBuilder, NamesTimesAndSelfTime) {
  ThreadShadow s(small_limits());
  s.enter(1, 0);
  s.enter(2, 10);
  s.leave(2, 40);
  s.leave(1, 100);
  auto roots = build_roots(s.root(), name_of, 2.0, {});
  ASSERT_EQ(roots.size(), 1u);
  EXPECT_EQ(roots[0].name(), "App.F1");
  EXPECT_EQ(roots[0].module(), "App.dll");
  EXPECT_EQ(*roots[0].calls, 1u);
  EXPECT_EQ(*roots[0].total_ns, 200u);
  EXPECT_EQ(*roots[0].self_ns, 140u);
  ASSERT_EQ(roots[0].children.size(), 1u);
  EXPECT_EQ(*roots[0].children[0].total_ns, 60u);
  EXPECT_EQ(*roots[0].children[0].self_ns, 60u);
}

TEST(TreeBuilder, SiblingsWithOneNameAreMergedWithTheirChildren) {
  ThreadShadow s(small_limits());
  s.enter(1, 0);
  for (clr::FunctionID box : {clr::FunctionID(0xB1), clr::FunctionID(0xB2), clr::FunctionID(0xB1)}) {
    s.enter(box, 0);
    s.enter(3, 0);
    s.leave(3, 0);
    s.leave(box, 0);
  }
  s.leave(1, 0);
  auto roots = build_roots(s.root(), name_of, 1.0, {});
  ASSERT_EQ(roots[0].children.size(), 1u);
  const ReportNode& box = roots[0].children[0];
  EXPECT_EQ(box.name(), "App.Box`1.Get");
  EXPECT_EQ(*box.calls, 3u);
  ASSERT_EQ(box.children.size(), 1u);
  EXPECT_EQ(*box.children[0].calls, 3u);
}

TEST(TreeBuilder, OpenFramesCountUpToNow) {
  ThreadShadow s(small_limits());
  s.enter(1, 0);
  s.enter(2, 50);
  OpenTicks open;
  s.for_each_open_frame(80, [&](const CallNode* n, uint64_t t) { open[n] += t; });
  auto roots = build_roots(s.root(), name_of, 1.0, open);
  EXPECT_EQ(*roots[0].total_ns, 80u);
  EXPECT_EQ(*roots[0].children[0].total_ns, 30u);
  EXPECT_EQ(*roots[0].self_ns, 50u);
}

// Thousands of methods: each node still gets its own method's name however many the report names.
TEST(TreeBuilder, EveryNodeOfAWideTreeIsNamedAfterItsOwnMethod) {
  ThreadShadow s(small_limits());
  s.enter(1, 0);
  for (clr::FunctionID f = 1000; f < 4000; ++f) {
    s.enter(f, 0);
    s.leave(f, 0);
  }
  s.leave(1, 0);
  auto roots = build_roots(s.root(), name_of, 1.0, {});
  ASSERT_EQ(roots[0].children.size(), 3000u);
  std::set<std::string> names;
  for (const ReportNode& child : roots[0].children) names.insert(child.name());
  EXPECT_EQ(names.size(), 3000u);
  EXPECT_EQ(*names.begin(), "App.F1000");
  EXPECT_EQ(*names.rbegin(), "App.F3999");
}

TEST(TreeBuilder, SamplesAddUpTheTree) {
  ThreadShadow s(small_limits());
  s.enter(1, 0);
  s.enter(2, 0);
  s.current_node()->self_samples.store(3);
  s.leave(2, 0);
  s.current_node()->self_samples.store(1);
  s.leave(1, 0);
  auto roots = build_roots(s.root(), name_of, 1.0, {});
  EXPECT_EQ(roots[0].samples, 4u);
  EXPECT_EQ(roots[0].self_samples, 1u);
  EXPECT_EQ(roots[0].children[0].samples, 3u);
}

// A thread's start below its outermost method is shown when the program's own native code is in it (a thread made
// by pthread_create in the program); the runtime's own thread start (its modules, libc's start-up) is not.
TEST(TreeBuilder, AThreadsStartIsShownWhenTheProgramsCodeIsInIt) {
  ThreadShadow s(small_limits());
  s.enter(1, 0);
  s.leave(1, 10);
  const CallNode* first = s.root().first_child_acquire();
  NativeLookup native = [](uintptr_t ip) {
    if (ip == 0x100) return NativeSymbol{"start_thread", "libc.so.6"};
    if (ip == 0x200) return NativeSymbol{"ThreadNative::KickOffThread", "libcoreclr.so"};
    return NativeSymbol{"worker_start", "libworker.so"};
  };
  auto roots_with = [&](std::vector<SampleFrame> run) {
    SpliceLookup splices = [&](const CallNode* node) { return node == first ? &run : nullptr; };
    return build_roots(s.root(), name_of, 1.0, {}, splices, native);
  };
  auto by_runtime = roots_with({{0x100, true}, {0x200, true}});
  ASSERT_EQ(by_runtime.size(), 1u);
  EXPECT_EQ(by_runtime[0].name(), "App.F1");
  auto by_program = roots_with({{0x100, true}, {0x300, true}});
  ASSERT_EQ(by_program.size(), 1u);
  EXPECT_EQ(by_program[0].name(), "start_thread");
  ASSERT_EQ(by_program[0].children.size(), 1u);
  EXPECT_EQ(by_program[0].children[0].name(), "worker_start");
  EXPECT_EQ(by_program[0].children[0].children[0].name(), "App.F1");
}

// The builder finishes each node as it makes it and counts the calls it converts (no second walk of the tree): its
// totals must be what a walk over the finished tree computes, through merged siblings (at two levels), a splice,
// samples above a node, open frames.
void expect_same_totals(const ReportNode& built, const ReportNode& recomputed) {
  SCOPED_TRACE(built.name());
  EXPECT_EQ(built.samples, recomputed.samples);
  EXPECT_EQ(built.cpu_samples, recomputed.cpu_samples);
  EXPECT_EQ(built.self_ns, recomputed.self_ns);
  ASSERT_EQ(built.children.size(), recomputed.children.size());
  for (size_t i = 0; i < built.children.size(); ++i) expect_same_totals(built.children[i], recomputed.children[i]);
}

TEST(TreeBuilder, NodesComeFinishedThroughMergesSplicesAndSamplesAbove) {
  ThreadShadow s(small_limits());
  uint64_t t = 0;
  s.enter(1, t);
  const CallNode* spliced = nullptr;
  const CallNode* sampled_above = nullptr;
  for (clr::FunctionID box : {clr::FunctionID(0xB1), clr::FunctionID(0xB2)}) {
    s.enter(box, t += 5);
    for (clr::FunctionID inner : {clr::FunctionID(0xB2), clr::FunctionID(0xB1), clr::FunctionID(4)}) {
      s.enter(inner, t += 3);
      s.current_node()->self_samples.store(inner + box);
      s.current_node()->self_cpu_samples.store(box);
      if (inner == 4) (box == 0xB1 ? spliced : sampled_above) = s.current_node();
      s.leave(inner, t += 7 * inner);
    }
    s.current_node()->self_samples.store(2);
    s.leave(box, t += 11);
  }
  s.enter(5, t += 1);  // still open
  std::vector<SampleFrame> splice = {{0x7000, true}, {0x7100, true}};
  SpliceLookup splices = [&](const CallNode* node) { return node == spliced ? &splice : nullptr; };
  SampledTree above_tree;
  SampleFrame above_stack[] = {{0x8000, true}, {0x8100, true}};
  above_tree.add(above_stack, 2, true);
  above_tree.add(above_stack, 1, false);
  AboveLookup above = [&](const CallNode* node) { return node == sampled_above ? &above_tree : nullptr; };
  OpenTicks open;
  s.for_each_open_frame(t + 20, [&](const CallNode* n, uint64_t ticks) { open[n] += ticks; });
  NativeLookup native = [](uintptr_t ip) { return NativeSymbol{"native_" + std::to_string(ip), "libnative.so"}; };

  uint64_t calls_counted = 0;
  auto roots = build_roots(s.root(), name_of, 3.0, open, splices, native, above, nullptr, &calls_counted);
  ASSERT_EQ(roots.size(), 1u);
  ReportThread walked;
  walked.roots = roots;
  EXPECT_EQ(calls_counted, 10u);
  EXPECT_EQ(calls_counted, thread_calls(walked)) << "the builder's count is the sum over the finished tree";
  ASSERT_EQ(roots[0].children.size(), 2u);  // the two boxes merged; F5, open
  const ReportNode& box = roots[0].children[roots[0].children[0].name() == "App.Box`1.Get" ? 0 : 1];
  EXPECT_EQ(box.name(), "App.Box`1.Get");
  EXPECT_EQ(box.children.size(), 3u) << "Box's children, merged in turn, and the splice";
  ReportNode recomputed = roots[0];
  finish_totals(recomputed);
  expect_same_totals(roots[0], recomputed);
  EXPECT_GT(roots[0].samples, roots[0].self_samples);
}

// Every field of every node, in order: two trees that print the same are the same.
void describe(const ReportNode& node, std::string& out) {
  out += node.name() + "|" + node.kind() + "|" + std::to_string(node.calls.value_or(~0ull)) + "|" +
         std::to_string(node.total_ns.value_or(~0ull)) + "|" + std::to_string(node.self_ns.value_or(~0ull)) + "|" +
         std::to_string(node.samples) + "|" + std::to_string(node.self_samples) + "|" +
         std::to_string(node.cpu_samples) + "|" + std::to_string(node.tail_entries) + "(";
  for (const ReportNode& child : node.children) describe(child, out);
  out += ")";
}

// Converted by several threads, the tree is the one a single thread makes: every sibling in its place, merges
// (ids sharing a name) summed in the same order, splices, samples above hooks and open frames where they were.
// The namers of one report name a method once, whichever threads' trees it is in, and name it as before.
TEST(TreeBuilder, NamersKeepTheirNamesFromOneTreeToTheNext) {
  ThreadShadow first(small_limits()), second(small_limits());
  for (ThreadShadow* s : {&first, &second}) {
    s->enter(1, 0);
    s->enter(2, 1);
    s->leave(2, 2);
    s->leave(1, 3);
  }
  second.enter(3, 4);
  second.leave(3, 5);
  std::vector<clr::FunctionID> asked;
  NameLookup names = [&](clr::FunctionID f) {
    asked.push_back(f);
    return name_of(f);
  };
  NativeLookup native;
  FrameNamers namers(names, native);
  auto one = build_roots(first.root(), names, 1.0, {}, nullptr, native, nullptr, nullptr, nullptr, nullptr, &namers);
  auto two = build_roots(second.root(), names, 1.0, {}, nullptr, native, nullptr, nullptr, nullptr, nullptr, &namers);
  EXPECT_EQ(asked, (std::vector<clr::FunctionID>{1, 2, 3}));
  ASSERT_EQ(two.size(), 2u);  // the child entered last comes first
  EXPECT_EQ(two[0].name(), "App.F3");
  EXPECT_EQ(two[1].name(), "App.F1");
  EXPECT_EQ(two[1].children.at(0).name(), "App.F2");
  EXPECT_EQ(one[0].frame, two[1].frame);
}

TEST(TreeBuilder, HelpersConvertTheSameTreeAsOneThread) {
  ThreadShadow s(small_limits(64, size_t(64) << 20));
  std::mt19937_64 random(7);
  uint64_t t = 0;
  std::vector<clr::FunctionID> stack;
  std::vector<const CallNode*> some_nodes;
  while (s.node_count() < 60'000) {
    size_t depth = 1 + random() % 24;
    clr::FunctionID f = 1;
    for (size_t d = 0; d < depth; ++d) {
      f = 10 + (f * 31 + random() % (d < 3 ? 3 : 40)) % 3'000;
      s.enter(f, t += 3);
      stack.push_back(f);
    }
    if (random() % 16 == 0) some_nodes.push_back(s.current_node());
    while (!stack.empty()) {
      s.leave(stack.back(), t += 5);
      stack.pop_back();
    }
  }
  for (size_t d = 0; d < 12; ++d) s.enter(10 + d, t += 1);  // open frames
  OpenTicks open;
  s.for_each_open_frame(t + 50, [&](const CallNode* n, uint64_t ticks) { open[n] += ticks; });
  std::set<const CallNode*> spliced(some_nodes.begin(), some_nodes.begin() + some_nodes.size() / 2);
  std::set<const CallNode*> sampled_above(some_nodes.begin() + some_nodes.size() / 2, some_nodes.end());
  std::vector<SampleFrame> splice = {{0x7000, true}, {0x7100, true}};
  SpliceLookup splices = [&](const CallNode* node) { return spliced.count(node) ? &splice : nullptr; };
  SampledTree above_tree;
  SampleFrame above_stack[] = {{0x8000, true}, {0x8100, true}};
  above_tree.add(above_stack, 2, true);
  AboveLookup above = [&](const CallNode* node) { return sampled_above.count(node) ? &above_tree : nullptr; };
  NativeLookup native = [](uintptr_t ip) { return NativeSymbol{"native_" + std::to_string(ip), "libnative.so"}; };
  // Ids a few apart share a name, as generic instantiations do: siblings merge across the halves workers take.
  NameLookup names = [](clr::FunctionID f) { return FunctionName{"App.M" + std::to_string(f / 4), "App.dll"}; };

  uint64_t alone_calls = 0;
  std::string alone;
  for (const ReportNode& root : build_roots(s.root(), names, 1.5, open, splices, native, above, nullptr, &alone_calls))
    describe(root, alone);
  ASSERT_GT(some_nodes.size(), 100u);
  EXPECT_EQ(alone_calls, testing::sum_calls(s.root()));
  for (unsigned helpers : {1u, 3u}) {
    SharedWork work(helpers);
    ASSERT_EQ(work.helpers(), helpers);
    // A helper that the machine's load keeps off the CPU takes nothing: rounds go on until one took a piece.
    for (int round = 0; round < 3 || (work.shared() == 0 && round < 300); ++round) {
      uint64_t calls = 0;
      std::string shared;
      for (const ReportNode& root :
           build_roots(s.root(), names, 1.5, open, splices, native, above, nullptr, &calls, &work))
        describe(root, shared);
      ASSERT_EQ(calls, alone_calls);
      ASSERT_TRUE(shared == alone) << helpers << " helpers, round " << round << ": the trees differ";
    }
    EXPECT_GT(work.shared(), 0u) << "no piece of the tree went to a helper: nothing above was compared";
  }
}

// A sampled stack that stopped short of its thread's start is kept under the marker, never named as native code
// (the marker's frame is native, at an address where no code is).
TEST(TreeBuilder, AStackThatStoppedShortOfItsStartIsKeptUnderTheMarker) {
  SampledTree tree;
  const SampleFrame whole[] = {{0x7000, true}, {2, false}};
  const SampleFrame cut[] = {kStackIncompleteFrame, {2, false}};
  tree.add(whole, 2, true);
  tree.add(cut, 2, true);
  tree.add(cut, 2, false);
  NativeLookup native = [](uintptr_t ip) { return NativeSymbol{"native_" + std::to_string(ip), "libnative.so"}; };
  auto roots = build_sampled_roots(tree, name_of, native);
  ASSERT_EQ(roots.size(), 2u);
  const ReportNode& marker = roots[0].name() == kStackIncomplete ? roots[0] : roots[1];
  EXPECT_EQ(marker.name(), kStackIncomplete);
  EXPECT_EQ(marker.kind(), "marker");
  EXPECT_EQ(marker.samples, 2u);
  ASSERT_EQ(marker.children.size(), 1u);
  EXPECT_EQ(marker.children[0].name(), "App.F2");
}

}  // namespace
}  // namespace umbra
