#include "hooks/child_index.h"

#include <gtest/gtest.h>

#include <vector>

namespace umbra {
namespace {

// Nodes numbered as a thread's shadow numbers them: `parents` parents under the root (node 0), each followed by
// its `per_parent` children.
struct Node {
  NodeNumber parent;
  clr::FunctionID function;
  NodeNumber number;
};
std::vector<Node> forest(int parents, int per_parent) {
  std::vector<Node> nodes;
  NodeNumber next = 1;
  for (int p = 0; p < parents; ++p) {
    NodeNumber parent = next++;
    nodes.push_back({0, clr::FunctionID(0x100 + p), parent});
    for (int c = 1; c <= per_parent; ++c) nodes.push_back({parent, clr::FunctionID(0x1000 + c), next++});  // the same functions under every parent
  }
  return nodes;
}

TEST(ChildIndex, FindsEveryChildUnderItsOwnParentAcrossGrowths) {
  std::vector<Node> nodes = forest(40, 99);  // 4,000 entries: the table grows from 1,024 slots to 8,192
  ChildIndex index(nodes.size());
  for (const Node& n : nodes) ASSERT_TRUE(index.insert(n.parent, n.function, n.number));
  EXPECT_EQ(index.size(), nodes.size());
  for (const Node& n : nodes) EXPECT_EQ(index.find(n.parent, n.function), n.number);
  EXPECT_EQ(index.find(0, 0x1001), 0u);                     // a function under another parent
  EXPECT_EQ(index.find(nodes[0].number, 0x1000 + 100), 0u);  // a function never inserted
}

TEST(ChildIndex, ATableThatCannotGrowIsNoLongerUsable) {
  std::vector<Node> nodes = forest(1, 2000);
  // Reserved for no nodes: only the first table (1,024 slots, grown at three quarters) fits.
  ChildIndex index(0);
  size_t inserted = 0;
  while (inserted < nodes.size() &&
         index.insert(nodes[inserted].parent, nodes[inserted].function, nodes[inserted].number))
    ++inserted;
  EXPECT_EQ(inserted, 768u);
  EXPECT_FALSE(index.usable());
  EXPECT_FALSE(index.insert(nodes[0].parent, nodes[0].function, nodes[0].number));
}

}  // namespace
}  // namespace umbra
