// Period reports read through PeriodCounts: each period holds what came since the one before, the periods add up
// to the whole, and a tree read as the last period read it is that whole, without what came since.
#include "merge/period_counts.h"

#include <gtest/gtest.h>

#include "merge/sampled_tree_builder.h"
#include "merge/tree_builder.h"
#include "report/report_tree.h"
#include "shadow_limits.h"

namespace umbra {
namespace {

using testing::small_limits;

FunctionName name_of(clr::FunctionID f) { return {"App.F" + std::to_string(f), "App.dll"}; }

const ReportNode* child_named(const std::vector<ReportNode>& nodes, const std::string& name) {
  for (const ReportNode& n : nodes)
    if (n.name() == name) return &n;
  return nullptr;
}

void calls(ThreadShadow& s, clr::FunctionID f, int n, uint64_t& now) {
  for (int i = 0; i < n; ++i) {
    s.enter(f, now);
    now += 10;
    s.leave(f, now);
  }
}

TEST(PeriodCounts, ShadowPeriodsHoldWhatCameSinceAndAddUp) {
  ThreadShadow s(small_limits());
  PeriodCounts counts;
  uint64_t now = 0;
  s.enter(1, now);  // open through every period
  calls(s, 2, 3, now);
  PeriodCounts::Lens period(counts, PeriodCounts::Use::kPeriod);
  OpenTicks open;
  s.for_each_open_frame(now, [&](const CallNode* node, uint64_t ticks) { open[node] += ticks; });
  auto first = build_roots(s.root(), name_of, 1.0, open, nullptr, nullptr, nullptr, &period);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(*first[0].calls, 1u);
  EXPECT_EQ(*first[0].total_ns, 30u);
  EXPECT_EQ(*child_named(first[0].children, "App.F2")->calls, 3u);

  calls(s, 3, 2, now);  // a new path in the second period
  open.clear();
  s.for_each_open_frame(now, [&](const CallNode* node, uint64_t ticks) { open[node] += ticks; });
  uint64_t second_calls = 0;
  auto second = build_roots(s.root(), name_of, 1.0, open, nullptr, nullptr, nullptr, &period, &second_calls);
  EXPECT_EQ(second_calls, 2u) << "the period's calls only: the thread's line in its text report";
  drop_empty_nodes(second);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(*second[0].calls, 0u);       // entered in the first period
  EXPECT_EQ(*second[0].total_ns, 20u);   // the time it was open in the second
  EXPECT_EQ(child_named(second[0].children, "App.F2"), nullptr);  // nothing happened there
  EXPECT_EQ(*child_named(second[0].children, "App.F3")->calls, 2u);

  calls(s, 2, 5, now);  // after the last period: not in a tree read as it read it
  PeriodCounts::Lens as_read(counts, PeriodCounts::Use::kLastRead);
  auto whole = build_roots(s.root(), name_of, 1.0, {}, nullptr, nullptr, nullptr, &as_read);
  EXPECT_EQ(*child_named(whole[0].children, "App.F2")->calls, 3u);
  EXPECT_EQ(*child_named(whole[0].children, "App.F3")->calls, 2u);
  EXPECT_EQ(*whole[0].total_ns, 50u);
}

TEST(PeriodCounts, NodesMadeAfterTheLastPeriodAreLeftOut) {
  ThreadShadow s(small_limits());
  PeriodCounts counts;
  uint64_t now = 0;
  calls(s, 1, 1, now);
  PeriodCounts::Lens period(counts, PeriodCounts::Use::kPeriod);
  build_roots(s.root(), name_of, 1.0, {}, nullptr, nullptr, nullptr, &period);
  calls(s, 4, 1, now);
  PeriodCounts::Lens as_read(counts, PeriodCounts::Use::kLastRead);
  auto whole = build_roots(s.root(), name_of, 1.0, {}, nullptr, nullptr, nullptr, &as_read);
  ASSERT_EQ(whole.size(), 1u);
  EXPECT_EQ(whole[0].name(), "App.F1");
}

TEST(PeriodCounts, SampledTreesAndThreads) {
  SampledTree tree;
  const SampleFrame a[] = {{1, false}, {2, false}};
  tree.add(a, 2, true);
  tree.add(a, 2, false);
  PeriodCounts counts;
  PeriodCounts::Lens period(counts, PeriodCounts::Use::kPeriod);
  auto first = build_sampled_roots(tree, name_of, nullptr, &period);
  EXPECT_EQ(first[0].samples, 2u);
  EXPECT_EQ(first[0].cpu_samples, 1u);
  const SampleFrame b[] = {{1, false}, {3, false}};
  tree.add(b, 2, true);
  auto second = build_sampled_roots(tree, name_of, nullptr, &period);
  drop_empty_nodes(second);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].samples, 1u);
  ASSERT_EQ(second[0].children.size(), 1u);
  EXPECT_EQ(second[0].children[0].name(), "App.F3");

  int thread_key = 0;
  EXPECT_EQ(period.thread(&thread_key, {100, 5, std::nullopt}).cpu_ns, 100u);
  ThreadCounts later = period.thread(&thread_key, {250, 9, std::nullopt});
  EXPECT_EQ(later.cpu_ns, 150u);
  EXPECT_EQ(later.managed_samples, 4u);
  EXPECT_FALSE(later.native_samples);
  PeriodCounts::Lens as_read(counts, PeriodCounts::Use::kLastRead);
  EXPECT_TRUE(as_read.includes_thread(&thread_key));
  EXPECT_EQ(as_read.thread(&thread_key, {}).cpu_ns, 250u);
  int other = 0;
  EXPECT_FALSE(as_read.includes_thread(&other));
}

}  // namespace
}  // namespace umbra
