#include "merge/tree_builder.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

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

}  // namespace
}  // namespace umbra
