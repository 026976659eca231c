#include "report/report_tree.h"

#include <gtest/gtest.h>

#include <string>

namespace umbra {
namespace {

ReportNode called(const std::string& name, uint64_t calls, std::vector<ReportNode> children = {}) {
  ReportNode n;
  n.frame = intern_frame(name, "App.dll");
  n.calls = calls;
  n.total_ns = 10 * calls;
  n.children = std::move(children);
  return n;
}

// Lists short enough to be searched in place and long enough to be indexed merge alike.
TEST(SiblingMerger, MergesTheSameFrameInShortAndLongLists) {
  for (size_t width : {3, 40}) {
    std::vector<ReportNode> siblings;
    SiblingMerger merger(siblings);
    for (int round = 1; round <= 3; ++round)
      for (size_t i = 0; i < width; ++i) merger.add(called("F" + std::to_string(i), round));
    ASSERT_EQ(siblings.size(), width);
    for (size_t i = 0; i < width; ++i) {
      EXPECT_EQ(siblings[i].name(), "F" + std::to_string(i)) << "first-seen order";
      EXPECT_EQ(*siblings[i].calls, 6u);
    }
  }
}

TEST(SiblingMerger, MergesChildrenOfMergedNodesAndKeepsOtherKindsApart) {
  std::vector<ReportNode> siblings;
  SiblingMerger merger(siblings);
  std::vector<ReportNode> wide;
  for (int i = 0; i < 20; ++i) wide.push_back(called("C" + std::to_string(i), 1));
  merger.add(called("P", 1, wide));
  merger.add(called("P", 2, wide));
  ReportNode native = called("P", 5);
  native.frame = intern_frame("P", "App.dll", "native");
  merger.add(std::move(native));
  ASSERT_EQ(siblings.size(), 2u);
  EXPECT_EQ(*siblings[0].calls, 3u);
  ASSERT_EQ(siblings[0].children.size(), 20u);
  for (const ReportNode& child : siblings[0].children) EXPECT_EQ(*child.calls, 2u) << child.name();
  EXPECT_EQ(siblings[1].kind(), "native");
}

}  // namespace
}  // namespace umbra
