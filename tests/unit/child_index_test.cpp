#include "hooks/child_index.h"

#include <gtest/gtest.h>

#include <vector>

namespace umbra {
namespace {

// Nodes as a thread's reservation holds them: `parents` parents under the root, each with `per_parent` children.
struct Forest {
  CallNode root;
  std::vector<CallNode> nodes;
  Forest(int parents, int per_parent) : nodes(size_t(parents) * (per_parent + 1)) {
    for (int p = 0; p < parents; ++p) {
      CallNode& parent = nodes[size_t(p) * (per_parent + 1)];
      parent.function = 0x100 + p;
      parent.parent = &root;
      for (int c = 1; c <= per_parent; ++c) {
        CallNode& child = (&parent)[c];
        child.function = 0x1000 + c;  // the same functions under every parent
        child.parent = &parent;
      }
    }
  }
};

TEST(ChildIndex, FindsEveryChildUnderItsOwnParentAcrossGrowths) {
  Forest forest(40, 99);  // 4,000 entries: the table grows from 1,024 slots to 8,192
  ChildIndex index(&forest.root, forest.nodes.data(), forest.nodes.size());
  for (CallNode& node : forest.nodes) ASSERT_TRUE(index.insert(&node));
  EXPECT_EQ(index.size(), forest.nodes.size());
  for (CallNode& node : forest.nodes) EXPECT_EQ(index.find(node.parent, node.function), &node);
  EXPECT_EQ(index.find(&forest.root, 0x1001), nullptr);      // a function under another parent
  EXPECT_EQ(index.find(&forest.nodes[0], 0x1000 + 100), nullptr);  // a function never inserted
}

TEST(ChildIndex, ATableThatCannotGrowIsNoLongerUsable) {
  Forest forest(1, 2000);
  // Reserved for no nodes: only the first table (1,024 slots, grown at three quarters) fits.
  ChildIndex index(&forest.root, forest.nodes.data(), 0);
  size_t inserted = 0;
  while (inserted < forest.nodes.size() && index.insert(&forest.nodes[inserted])) ++inserted;
  EXPECT_EQ(inserted, 768u);
  EXPECT_FALSE(index.usable());
  EXPECT_FALSE(index.insert(&forest.nodes[0]));
}

}  // namespace
}  // namespace umbra
