#include "report/bounded_stacks.h"

#include <gtest/gtest.h>

#include "report/collapsed_writer.h"
#include "report/json_parser.h"
#include "report/speedscope_writer.h"
#include "report_fixture.h"

namespace umbra {
namespace {

ReportNode sampled(std::string name, uint64_t self, std::vector<ReportNode> children = {}) {
  ReportNode n;
  testing::set_name(n, std::move(name));
  n.self_samples = self;
  n.children = std::move(children);
  return n;
}

std::string walk(const std::vector<ReportNode>& roots, size_t max_frames, StackCuts& cuts) {
  std::string seen;
  walk_bounded_stacks(
      roots, max_frames, [](const ReportNode& n) { return n.self_samples; },
      [&](const StackStep& s) {
        seen += s.node.name() + "@" + std::to_string(s.depth) + "=" + std::to_string(s.weight);
        if (s.deeper_weight) seen += "+" + std::to_string(s.deeper_weight);
        seen += " ";
      },
      cuts);
  return seen;
}

TEST(BoundedStacks, VisitsInPreorderAndMergesWhatIsDeeper) {
  std::vector<ReportNode> roots;
  roots.push_back(sampled("a", 1, {sampled("b", 2, {sampled("c", 3, {sampled("d", 4)}), sampled("e", 0)})}));
  roots.push_back(sampled("f", 5));
  StackCuts cuts;
  EXPECT_EQ(walk(roots, 10, cuts), "a@0=1 b@1=2 c@2=3 d@3=4 e@2=0 f@0=5 ");
  EXPECT_EQ(cuts.merged, 0u);
  // Two levels kept: c and d are merged into b's deeper weight (e weighs nothing, so it is not counted).
  EXPECT_EQ(walk(roots, 2, cuts), "a@0=1 b@1=2+7 f@0=5 ");
  EXPECT_EQ(cuts.merged, 2u);
}

TEST(BoundedStacks, SaysWhatWasCutInOneLine) {
  StackLimits limits;
  EXPECT_EQ(describe_cuts("collapsed", limits, {}), "");
  EXPECT_EQ(describe_cuts("collapsed", limits, {12, 0}),
            "the collapsed report keeps the first 1024 frames of each stack; 12 deeper stacks were merged under "
            "'[deeper frames not shown]'");
  EXPECT_EQ(describe_cuts("speedscope", limits, {1, 3}),
            "the speedscope report keeps the first 1024 frames of each stack; 1 deeper stack was merged under "
            "'[deeper frames not shown]'; it stops at 256 MiB of stacks; 3 stacks were left out");
  limits.max_bytes = 40;
  EXPECT_EQ(describe_cuts("collapsed", limits, {0, 1}),
            "the collapsed report stops at 40 bytes of stacks; 1 stack was left out");
}

// Past the size limit whole stacks are left out, never part of one.
TEST(BoundedStacks, StacksPastTheSizeLimitAreLeftOutAndCounted) {
  Report r = testing::known_sampled_report(2, 7);
  r.threads[1].roots[0].self_samples = 1;
  StackLimits limits;
  limits.max_bytes = 40;
  StackCuts cuts;
  // "App.Program.Main 2\n" (19 bytes) fits; "App.Program.Main;App.Program.Hot 7\n" would end at 54; the last fits.
  EXPECT_EQ(report_to_collapsed(r, {}, &cuts, limits), "App.Program.Main 2\nApp.Worker.Run 1\n");
  EXPECT_EQ(cuts.left_out, 1u);

  limits.max_bytes = 12;  // "[0]" "2" and ",[0,1]" ",7" fill it: thread 2's "[3]" "1" is left out
  JsonValue doc = parse_json(report_to_speedscope(r, "t", &cuts, limits));
  const auto& profiles = doc.find("profiles")->as_array();
  EXPECT_EQ(profiles[0].find("weights")->as_array().size(), 2u);
  EXPECT_EQ(profiles[1].find("weights")->as_array().size(), 0u);
  EXPECT_EQ(cuts.left_out, 1u);
}

}  // namespace
}  // namespace umbra
