#include "snapshot/sampled_tree.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace umbra {
namespace {

TEST(SampledTree, CountsSamplesPerPath) {
  SampledTree tree;
  SampleFrame main{1, false}, work{2, false}, native{0x1000, true};
  SampleFrame a[] = {main, work};
  SampleFrame b[] = {main, work, native};
  tree.add(a, 2, true);
  tree.add(a, 2, false);
  tree.add(b, 3, false);
  EXPECT_EQ(tree.samples(), 3u);
  EXPECT_EQ(tree.cpu_samples(), 1u);
  ASSERT_EQ(tree.root().children.size(), 1u);
  const auto& m = tree.node(tree.root().children[0]);
  EXPECT_EQ(m.frame.id, 1u);
  EXPECT_EQ(m.self_samples, 0u);
  const auto& w = tree.node(m.children[0]);
  EXPECT_EQ(w.self_samples, 2u);
  EXPECT_EQ(w.self_cpu_samples, 1u);
  ASSERT_EQ(w.children.size(), 1u);
  EXPECT_TRUE(tree.node(w.children[0]).frame.native);
  EXPECT_EQ(tree.node(w.children[0]).self_samples, 1u);
}

TEST(SampledTree, AStackSeenAgainCountsAtTheNodeItEndedAt) {
  SampledTree tree;
  SampleFrame main{1, false}, wait{0x2000, true};
  SampleFrame a[] = {main, wait};
  uint32_t leaf = tree.add(a, 2, true);
  tree.add_again(leaf, false);
  tree.add_again(leaf, true);
  EXPECT_EQ(tree.samples(), 3u);
  EXPECT_EQ(tree.node(leaf).self_cpu_samples, 2u);
  EXPECT_EQ(tree.size(), 3u);  // no node was added
  EXPECT_EQ(tree.node(leaf).frame.id, 0x2000u);
  EXPECT_EQ(tree.node(leaf).self_samples, 3u);
  EXPECT_EQ(tree.add(a, 1, false), tree.node(leaf).parent);
}

// Stacks that share outer frames with the one before, in every way they can (the same, longer, shorter, diverging
// at the root, in the middle and at the leaf), make the tree that each stack added to a fresh tree would.
TEST(SampledTree, StacksSharingOuterFramesWithTheLastOneLandWhereTheirPathsLead) {
  const SampleFrame f1{1, false}, f2{2, false}, f3{3, false}, f4{4, false}, n5{5, true}, f5{5, false};
  const std::vector<std::vector<SampleFrame>> stacks = {
      {f1, f2, f3}, {f1, f2, f3}, {f1, f2, f3, f4}, {f1, f2}, {f1, f2, f4}, {f2, f1}, {f2, f1, n5},
      {f2, f1, f5}, {f1}, {f1, f3, f2}, {f1, f2, f3, f4}, {}, {f1, f2, f3, n5}, {f1, f2, f3, f4}};
  // The node a path leads to, found from the root by the frames alone.
  auto find = [](const SampledTree& tree, const std::vector<SampleFrame>& path) -> int64_t {
    uint32_t at = 0;
    for (const SampleFrame& f : path) {
      const auto& children = tree.node(at).children;
      auto it = std::find_if(children.begin(), children.end(), [&](uint32_t c) { return tree.node(c).frame == f; });
      if (it == children.end()) return -1;
      at = *it;
    }
    return at;
  };
  SampledTree tree;
  for (const auto& stack : stacks) {
    uint32_t leaf = tree.add(stack.data(), stack.size(), true);
    EXPECT_EQ(int64_t(leaf), find(tree, stack));
  }
  // Each path once in the tree, with as many samples as it was added.
  EXPECT_EQ(tree.size(), 13u);  // the root and the 12 distinct paths
  for (const auto& stack : stacks) {
    int64_t node = find(tree, stack);
    ASSERT_GE(node, 0);
    EXPECT_EQ(tree.node(uint32_t(node)).self_samples, uint64_t(std::count(stacks.begin(), stacks.end(), stack)));
  }
  EXPECT_EQ(tree.samples(), stacks.size());
}

}  // namespace
}  // namespace umbra
