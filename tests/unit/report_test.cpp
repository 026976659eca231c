#include "report/report.h"

#include <gtest/gtest.h>

#include "report_fixture.h"

namespace umbra {
namespace {

TEST(Summary, OneLineWithEverythingAUserAsksFirst) {
  Report r = testing::known_report();
  r.threads[0].roots[0].samples = 5;
  r.threads[0].roots[0].cpu_samples = 4;
  // Samples of threads with no managed frame (the runtime's own) are outside the profile, not lost from it.
  r.stats.sampler.emplace().drops = NamedCounts{{"snapshot_unsafe", 3}, {"no_frames", 40}};
  EXPECT_EQ(total_drops(r), 5u);  // 2 stack_overflow + 3 snapshot_unsafe
  EXPECT_EQ(samples_outside_managed_code(r.stats), 40u);
  EXPECT_EQ(summary_line(r, {"a.json", "a.txt"}),
            "shadow profile: 2 threads, 15 calls, 5 samples (4 on CPU), 5 not captured (stats.drops); wrote a.json, "
            "a.txt");
  EXPECT_EQ(summary_line(Report{}, {}),
            "shadow profile: 0 threads, 0 calls, 0 samples (0 on CPU), 0 not captured (stats.drops); wrote nothing");
}

}  // namespace
}  // namespace umbra
