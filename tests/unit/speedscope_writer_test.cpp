#include "report/speedscope_writer.h"

#include <gtest/gtest.h>

#include <string>

#include "report/json_parser.h"
#include "report_fixture.h"
#include "util/large_stack.h"

namespace umbra {
namespace {

// The same for speedscope's sampled profiles (8,000 levels of one frame made 64 MB).
TEST(SpeedscopeWriter, ADeepSampledChainIsCutNotSquared) {
  run_on_large_stack([&] {
    Report r = testing::deep_chain(testing::kDeepChain);
    StackCuts cuts;
    std::string speedscope = report_to_speedscope(r, "t", &cuts);
    r.threads.clear();
    ASSERT_LT(speedscope.size(), size_t(4) << 20);
    JsonValue doc = parse_json(speedscope);
    const JsonValue& profile = doc.find("profiles")->as_array()[0];
    uint64_t total = 0;
    for (const JsonValue& w : profile.find("weights")->as_array()) total += w.as_uint();
    EXPECT_EQ(total, uint64_t(testing::kDeepChain));
    const auto& stacks = profile.find("samples")->as_array();
    ASSERT_EQ(stacks.size(), 1025u);  // the first 1024 levels, then one stack for the rest
    ASSERT_EQ(stacks.back().as_array().size(), 1025u);
    const auto& frames = doc.find("shared")->find("frames")->as_array();
    EXPECT_EQ(frames[stacks.back().as_array().back().as_uint()].find("name")->as_string(), testing::kDeeperMarker);
    EXPECT_EQ(cuts.merged, uint64_t(testing::kDeepChain - 1024));
  });
}

TEST(SpeedscopeWriter, ShadowModeIsEventedAndNested) {
  JsonValue doc = parse_json(report_to_speedscope(testing::known_report(), "t"));
  EXPECT_EQ(doc.find("$schema")->as_string(), "https://www.speedscope.app/file-format-schema.json");
  const auto& frames = doc.find("shared")->find("frames")->as_array();
  EXPECT_EQ(frames.size(), 4u);  // Main, Hot, Tiny, Run
  const auto& profiles = doc.find("profiles")->as_array();
  ASSERT_EQ(profiles.size(), 2u);
  const JsonValue& main = profiles[0];
  EXPECT_EQ(main.find("type")->as_string(), "evented");
  EXPECT_EQ(main.find("unit")->as_string(), "nanoseconds");
  EXPECT_EQ(main.find("endValue")->as_uint(), 1'000'000'000u);
  const auto& events = main.find("events")->as_array();
  ASSERT_EQ(events.size(), 6u);
  // Main opens at 0; Hot [0, 899 ms); Tiny [899, 900 ms); Main closes at 1 s.
  EXPECT_EQ(events[1].find("at")->as_uint(), 0u);
  EXPECT_EQ(events[2].find("at")->as_uint(), 899'000'000u);
  EXPECT_EQ(events[3].find("at")->as_uint(), 899'000'000u);
  EXPECT_EQ(events[4].find("at")->as_uint(), 900'000'000u);
  EXPECT_EQ(events[5].find("type")->as_string(), "C");
  EXPECT_EQ(events[5].find("at")->as_uint(), 1'000'000'000u);
}

// Beside each thread's profile (wall time), one of its samples taken on a CPU, for a thread that has any.
TEST(SpeedscopeWriter, ThreadsOnACpuHaveACpuProfileToo) {
  for (const char* mode : {"shadow", "sampled"}) {
    SCOPED_TRACE(mode);
    Report r = testing::known_sampled_report(4, 6);
    r.mode = mode;
    r.threads[0].roots[0].children[0].self_cpu_samples = 5;
    r.threads[0].roots[0].children[0].cpu_samples = 5;
    r.threads[0].roots[0].cpu_samples = 5;
    JsonValue doc = parse_json(report_to_speedscope(r, "t"));
    const auto& profiles = doc.find("profiles")->as_array();
    ASSERT_EQ(profiles.size(), 3u);  // Main's, Main's on a CPU, the worker's
    const JsonValue& cpu = profiles[1];
    EXPECT_EQ(cpu.find("type")->as_string(), "sampled");
    EXPECT_EQ(cpu.find("name")->as_string(), "Main \"thread\" (tid 42) on CPU");
    EXPECT_EQ(cpu.find("endValue")->as_uint(), 5u);
    EXPECT_EQ(cpu.find("weights")->dump(), "[5]");
    const auto& frames = doc.find("shared")->find("frames")->as_array();
    const auto& stack = cpu.find("samples")->as_array()[0].as_array();
    ASSERT_EQ(stack.size(), 2u);
    EXPECT_EQ(frames[stack[1].as_uint()].find("name")->as_string(), "App.Program.Hot");
    EXPECT_EQ(profiles[2].find("name")->as_string(), "thread (tid 43)");
  }
}

TEST(SpeedscopeWriter, ChildrenAreClippedToTheirParent) {
  Report r = testing::known_report();
  r.threads[0].roots[0].children[0].total_ns = 2'000'000'000;  // rounding gone wild: longer than its parent
  JsonValue doc = parse_json(report_to_speedscope(r, "t"));
  uint64_t last = 0;
  for (const auto& e : doc.find("profiles")->as_array()[0].find("events")->as_array()) {
    EXPECT_GE(e.find("at")->as_uint(), last);
    EXPECT_LE(e.find("at")->as_uint(), 1'000'000'000u);
    last = e.find("at")->as_uint();
  }
}

TEST(SpeedscopeWriter, SampledModeHasOneStackPerLeaf) {
  Report r = testing::known_sampled_report(1, 3);
  JsonValue doc = parse_json(report_to_speedscope(r, "t"));
  const JsonValue& p = doc.find("profiles")->as_array()[0];
  EXPECT_EQ(p.find("type")->as_string(), "sampled");
  ASSERT_EQ(p.find("samples")->as_array().size(), 2u);
  EXPECT_EQ(p.find("samples")->as_array()[1].as_array().size(), 2u);  // Main, Hot
  EXPECT_EQ(p.find("weights")->as_array()[1].as_uint(), 3u);
  EXPECT_EQ(p.find("endValue")->as_uint(), 4u);
}

}  // namespace
}  // namespace umbra
