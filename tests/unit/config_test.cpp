#include "profiler/config.h"

#include <gtest/gtest.h>

#include <map>

namespace umbra {
namespace {

Config load(std::map<std::string, std::string> env, std::vector<std::string>& warnings) {
  return load_config(
      [&](const char* name) -> std::optional<std::string> {
        auto it = env.find(name);
        return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
      },
      1234, warnings);
}

TEST(Config, Defaults) {
  std::vector<std::string> warnings;
  Config c = load({}, warnings);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(c.mode, Mode::kShadow);
  EXPECT_EQ(c.output_prefix, "./umbra-1234");
  EXPECT_EQ(c.log_level, "warn");
  EXPECT_DOUBLE_EQ(c.min_percent, 0.5);
  EXPECT_EQ(c.interval_ms, 10u);
  EXPECT_EQ(c.formats, (std::vector<std::string>{"json", "text"}));
  EXPECT_FALSE(c.allow_inlining);
  EXPECT_EQ(c.hooks, HookFamily::kElt3);
  EXPECT_FALSE(c.exact_times);
  EXPECT_FALSE(c.noop_hooks);
}

TEST(Config, HookFamilyAndTiming) {
  std::vector<std::string> warnings;
  Config c = load({{"UMBRA_HOOKS", "ELT2"}, {"UMBRA_EXACT_TIMES", "1"}}, warnings);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(c.hooks, HookFamily::kElt2);
  EXPECT_TRUE(c.exact_times);
  c = load({{"UMBRA_HOOKS", "elt4"}}, warnings);
  EXPECT_EQ(c.hooks, HookFamily::kElt3);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], "UMBRA_HOOKS='elt4' is not elt3 or elt2; using elt3");
}

// The launched process keeps the prefix; a process it started (same environment, another pid) adds its pid.
TEST(Config, DescendantsOfTheLaunchedProcessAddTheirPid) {
  std::vector<std::string> warnings;
  EXPECT_EQ(load({{"UMBRA_OUTPUT", "/tmp/r"}, {"UMBRA_LAUNCHED_PID", "1234"}}, warnings).output_prefix, "/tmp/r");
  EXPECT_EQ(load({{"UMBRA_OUTPUT", "/tmp/r"}, {"UMBRA_LAUNCHED_PID", "999"}}, warnings).output_prefix,
            "/tmp/r.1234");
  EXPECT_EQ(load({{"UMBRA_OUTPUT", "/tmp/r"}, {"UMBRA_LAUNCHED_PID", "x"}}, warnings).output_prefix, "/tmp/r");
  EXPECT_TRUE(warnings.empty());
}

TEST(Config, GoodValues) {
  std::vector<std::string> warnings;
  Config c = load({{"UMBRA_OUTPUT", "/tmp/x"},
                   {"UMBRA_LOG_LEVEL", "DEBUG"},
                   {"UMBRA_MIN_PERCENT", "2.5"},
                   {"UMBRA_INTERVAL_MS", "1"},
                   {"UMBRA_FORMATS", "text"},
                   {"UMBRA_ALLOW_INLINING", "yes"},
                   {"UMBRA_MAX_DEPTH", "1000"}},
                  warnings);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(c.output_prefix, "/tmp/x");
  EXPECT_EQ(c.log_level, "debug");
  EXPECT_DOUBLE_EQ(c.min_percent, 2.5);
  EXPECT_EQ(c.interval_ms, 1u);
  EXPECT_EQ(c.formats, std::vector<std::string>{"text"});
  EXPECT_TRUE(c.allow_inlining);
  EXPECT_EQ(c.max_depth, 1000u);
}

TEST(Config, EachBadValueGivesOneLineNamingVariableValueAndFallback) {
  struct Case {
    const char* name;
    const char* value;
    const char* fallback;
  } cases[] = {
      {"UMBRA_MODE", "fast", "using shadow"},
      {"UMBRA_LOG_LEVEL", "loud", "using warn"},
      {"UMBRA_MIN_PERCENT", "-1", "using 0.5"},
      {"UMBRA_MIN_PERCENT", "abc", "using 0.5"},
      {"UMBRA_MIN_PERCENT", "1e400", "using 0.5"},
      {"UMBRA_INTERVAL_MS", "0", "using 10"},
      {"UMBRA_INTERVAL_MS", "99999999999999999999999", "using 10"},
      {"UMBRA_INTERVAL_MS", " 5", "using 10"},
      {"UMBRA_ALLOW_INLINING", "maybe", "using 0"},
      {"UMBRA_ALLOW_INLINING", "", "using 0"},
      {"UMBRA_MAX_DEPTH", "3", "using 65536"},
      {"UMBRA_FORMATS", "pdf", "skipping it"},
      {"UMBRA_OUTPUT", "", "using ./umbra-1234"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> warnings;
    Config config = load({{c.name, c.value}}, warnings);
    ASSERT_GE(warnings.size(), 1u) << c.name << "=" << c.value;
    EXPECT_NE(warnings[0].find(std::string(c.name) + "='" + c.value + "'"), std::string::npos) << warnings[0];
    EXPECT_NE(warnings[0].find(c.fallback), std::string::npos) << warnings[0];
    EXPECT_EQ(config.mode, Mode::kShadow);
  }
}

TEST(Config, SampledMode) {
  std::vector<std::string> warnings;
  Config c = load({{"UMBRA_MODE", "Sampled"}, {"UMBRA_INTERVAL_MS", "1"}}, warnings);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(c.mode, Mode::kSampled);
  EXPECT_EQ(c.interval_ms, 1u);
}

TEST(Config, FormatsKeepKnownOnesAndDropTheRest) {
  std::vector<std::string> warnings;
  Config c = load({{"UMBRA_FORMATS", " TEXT, pdf ,json,text"}}, warnings);
  EXPECT_EQ(c.formats, (std::vector<std::string>{"text", "json"}));
  EXPECT_EQ(warnings.size(), 1u);
}

}  // namespace
}  // namespace umbra
