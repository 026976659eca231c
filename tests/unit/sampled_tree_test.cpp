#include "snapshot/sampled_tree.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace umbra
