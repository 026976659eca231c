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

// The defaults as README's options table states them, written here, not read from the option table: a default
// changed in the code fails the tests that compare with these.
Config readme_defaults() {
  Config c;
  c.mode = Mode::kShadow;
  c.output_prefix = "./umbra-1234";
  c.descendant = false;
  c.log_level = "warn";
  c.min_percent = 0.5;
  c.interval_ms = 10;
  c.reconcile_ms = 100;
  c.check_ms = 1000;
  c.walker = Walker::kSignal;
  c.verify = false;
  c.formats = {"json", "text"};
  c.allow_inlining = false;
  c.max_depth = 65536;
  c.max_tree_mb = 4096;
  c.hooks = HookFamily::kElt3;
  c.exact_times = false;
  c.noop_hooks = false;
  c.hooks_for = "@app";
  return c;
}

TEST(Config, EveryDefaultIsTheOneTheReadmeStates) {
  std::vector<std::string> warnings;
  Config c = load({}, warnings);
  EXPECT_TRUE(warnings.empty());
  // Field by field first, so that a failure names the default that changed.
  EXPECT_EQ(c.mode, Mode::kShadow);
  EXPECT_EQ(c.output_prefix, "./umbra-1234");
  EXPECT_FALSE(c.descendant);
  EXPECT_EQ(c.interval_ms, 10u);
  EXPECT_EQ(c.reconcile_ms, 100u);
  EXPECT_EQ(c.check_ms, 1000u);
  EXPECT_EQ(c.walker, Walker::kSignal);
  EXPECT_FALSE(c.verify);
  EXPECT_EQ(c.max_depth, 65536u);
  EXPECT_EQ(c.max_tree_mb, 4096u);
  EXPECT_EQ(c.formats, (std::vector<std::string>{"json", "text"}));
  EXPECT_DOUBLE_EQ(c.min_percent, 0.5);
  EXPECT_EQ(c.hooks, HookFamily::kElt3);
  EXPECT_FALSE(c.exact_times);
  EXPECT_FALSE(c.allow_inlining);
  EXPECT_EQ(c.log_level, "warn");
  EXPECT_FALSE(c.noop_hooks);
  EXPECT_EQ(c.hooks_for, "@app");
  // And whole, as the bad-value table below compares configurations.
  EXPECT_TRUE(c == readme_defaults());
}

// Each range's ends as umbra's messages state them ("from 1 to 60000"): an end is taken, one past it is not.
TEST(Config, RangesEndWhereTheMessagesSay) {
  struct Range {
    const char *variable, *below, *lowest, *highest, *above, *mode = "shadow";
  } ranges[] = {
      {"UMBRA_INTERVAL_MS", "0", "1", "60000", "60001"},
      {"UMBRA_RECONCILE_MS", "-1", "0", "60000", "60001"},
      {"UMBRA_CHECK_MS", "-1", "0", "60000", "60001", "sampled"},
      {"UMBRA_MAX_DEPTH", "15", "16", "16777216", "16777217"},
      {"UMBRA_MIN_PERCENT", "-0.5", "0", "100", "100.5"},
  };
  for (const Range& r : ranges) {
    for (const char* taken : {r.lowest, r.highest}) {
      std::vector<std::string> warnings;
      load({{r.variable, taken}, {"UMBRA_MODE", r.mode}}, warnings);
      EXPECT_TRUE(warnings.empty()) << r.variable << "=" << taken;
    }
    for (const char* refused : {r.below, r.above}) {
      std::vector<std::string> warnings;
      load({{r.variable, refused}, {"UMBRA_MODE", r.mode}}, warnings);
      EXPECT_EQ(warnings.size(), 1u) << r.variable << "=" << refused;
    }
  }
}

// Each mode checks its stacks at its own interval: the other mode's variable, though valid, would do nothing
// silently, so it gets one line; a bad value of it gets only the bad value's line.
TEST(Config, AnOptionOfTheOtherModeGetsOneLine) {
  std::vector<std::string> warnings;
  Config c = load({{"UMBRA_MODE", "sampled"}, {"UMBRA_RECONCILE_MS", "50"}, {"UMBRA_CHECK_MS", "200"}}, warnings);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], "UMBRA_RECONCILE_MS='50' applies to shadow mode only; ignoring it in sampled mode");
  EXPECT_EQ(c.check_ms, 200u);
  warnings.clear();
  load({{"UMBRA_CHECK_MS", "200"}, {"UMBRA_RECONCILE_MS", "50"}}, warnings);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], "UMBRA_CHECK_MS='200' applies to sampled mode only; ignoring it in shadow mode");
  warnings.clear();
  load({{"UMBRA_CHECK_MS", "abc"}}, warnings);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].rfind("UMBRA_CHECK_MS='abc' ", 0), 0u) << warnings[0];
  EXPECT_EQ(warnings[0].find("applies to"), std::string::npos) << warnings[0];
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

// The program's own code by default; `all` (or `*`) is every method, with no patterns to judge.
TEST(Config, MethodPatternsAreKeptAsWrittenAndABadListHooksTheProgramsOwnCode) {
  std::vector<std::string> warnings;
  EXPECT_EQ(load({{"UMBRA_HOOKS_FOR", "[WebApi], !*.Tick"}}, warnings).hooks_for, "[WebApi], !*.Tick");
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(load({}, warnings).hooks_for, "@app");
  EXPECT_EQ(load({{"UMBRA_HOOKS_FOR", "all"}}, warnings).hooks_for, "");
  EXPECT_EQ(load({{"UMBRA_HOOKS_FOR", "*"}}, warnings).hooks_for, "");
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(load({{"UMBRA_HOOKS_FOR", "@app,[Web"}}, warnings).hooks_for, "@app");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0],
            "UMBRA_HOOKS_FOR='@app,[Web' is not a list of method patterns ([Assembly]Namespace.Type.Method globs, "
            "!exclusions, @app) or all: '[Web' is not a pattern; hooking the program's own code (@app)");
}

// The launched process keeps the prefix; a process it started (same environment, another pid) adds its pid.
TEST(Config, DescendantsOfTheLaunchedProcessAddTheirPid) {
  std::vector<std::string> warnings;
  EXPECT_EQ(load({{"UMBRA_OUTPUT", "/tmp/r"}, {"UMBRA_LAUNCHED_PID", "1234"}}, warnings).output_prefix, "/tmp/r");
  Config descendant = load({{"UMBRA_OUTPUT", "/tmp/r"}, {"UMBRA_LAUNCHED_PID", "999"}}, warnings);
  EXPECT_EQ(descendant.output_prefix, "/tmp/r.1234");
  EXPECT_TRUE(descendant.descendant);
  EXPECT_FALSE(load({{"UMBRA_OUTPUT", "/tmp/r"}, {"UMBRA_LAUNCHED_PID", "1234"}}, warnings).descendant);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(load({{"UMBRA_OUTPUT", "/tmp/r"}, {"UMBRA_LAUNCHED_PID", "x"}}, warnings).output_prefix, "/tmp/r");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], "UMBRA_LAUNCHED_PID='x' is not a process id; writing /tmp/r.* as the launched process");
}

TEST(Config, GoodValues) {
  std::vector<std::string> warnings;
  Config c = load({{"UMBRA_OUTPUT", "/tmp/x"},
                   {"UMBRA_LOG_LEVEL", "DEBUG"},
                   {"UMBRA_MIN_PERCENT", "2.5"},
                   {"UMBRA_INTERVAL_MS", "1"},
                   {"UMBRA_FORMATS", "text"},
                   {"UMBRA_ALLOW_INLINING", "yes"},
                   {"UMBRA_MAX_DEPTH", "1000"},
                   {"UMBRA_MAX_TREE_MB", "64"}},
                  warnings);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(c.output_prefix, "/tmp/x");
  EXPECT_EQ(c.log_level, "debug");
  EXPECT_DOUBLE_EQ(c.min_percent, 2.5);
  EXPECT_EQ(c.interval_ms, 1u);
  EXPECT_EQ(c.formats, std::vector<std::string>{"text"});
  EXPECT_TRUE(c.allow_inlining);
  EXPECT_EQ(c.max_depth, 1000u);
  EXPECT_EQ(c.max_tree_mb, 64u);
}

// Every variable with every kind of bad value: exactly one line naming the variable and the value, and the
// configuration is README's default one (not load({}), which would follow a changed default).
TEST(Config, EveryVariableWithEveryKindOfBadValue) {
  const char* variables[] = {"UMBRA_MODE",         "UMBRA_LAUNCHED_PID",    "UMBRA_LOG_LEVEL",
                             "UMBRA_MIN_PERCENT",  "UMBRA_INTERVAL_MS",     "UMBRA_RECONCILE_MS", "UMBRA_CHECK_MS",
                             "UMBRA_VERIFY",       "UMBRA_MAX_DEPTH",       "UMBRA_HOOKS",
                             "UMBRA_EXACT_TIMES",  "UMBRA_COARSE_TIMES",    "UMBRA_BENCH_NOOP_HOOKS",
                             "UMBRA_ALLOW_INLINING",
                             "UMBRA_FORMATS"};
  const char* values[] = {"", "-5", "99999999999999999999999999", "1e400", "abc", "turbo", " 10", "0x10", "\xff"};
  const Config defaults = readme_defaults();
  for (const char* variable : variables) {
    for (const char* value : values) {
      std::vector<std::string> warnings;
      Config c = load({{variable, value}}, warnings);
      std::string quoted = std::string(variable) + "='" + value + "'";
      ASSERT_EQ(warnings.size(), 1u) << quoted;
      EXPECT_EQ(warnings[0].rfind(quoted, 0), 0u) << warnings[0];
      EXPECT_TRUE(warnings[0].find("; using ") != std::string::npos ||
                  warnings[0].find("; writing ") != std::string::npos)
          << warnings[0];
      EXPECT_TRUE(c == defaults) << quoted << " changed the configuration";
    }
  }
  // UMBRA_OUTPUT is a path: any text but the empty one names a file (an unwritable one falls back when written).
  std::vector<std::string> warnings;
  EXPECT_EQ(load({{"UMBRA_OUTPUT", ""}}, warnings).output_prefix, defaults.output_prefix);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], "UMBRA_OUTPUT='' is empty; using ./umbra-1234");
}

TEST(Config, UnknownVariablesAreNamed) {
  const char* environment[] = {"PATH=/bin", "UMBRA_MODE=sampled", "UMBRA_INTERVALMS=5", "UMBRA_=x", "UMBRA_LIBRARY=/l",
                               "XUMBRA_Y=1", nullptr};
  auto warnings = unknown_variable_warnings(environment);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_EQ(warnings[0], "UMBRA_INTERVALMS is not a variable umbra reads (a misspelling?); ignoring it");
  EXPECT_EQ(warnings[1].rfind("UMBRA_ is not", 0), 0u);
  EXPECT_TRUE(unknown_variable_warnings(nullptr).empty());
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
  Config c = load({{"UMBRA_FORMATS", " TEXT, pdf ,json,text,svg"}}, warnings);
  EXPECT_EQ(c.formats, (std::vector<std::string>{"text", "json"}));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("unknown formats 'pdf', 'svg'"), std::string::npos) << warnings[0];
}

}  // namespace
}  // namespace umbra

namespace umbra {
namespace {

TEST(Config, PeriodsAndPushing) {
  std::vector<std::string> warnings;
  Config c = load({{"UMBRA_EVERY", "1.5s"},
                   {"UMBRA_PUSH", "https://user:token@profiles.example:443/base"},
                   {"UMBRA_PUSH_NAME", "orders/api-1"},
                   {"UMBRA_PUSH_LABELS", "env=prod,region=eu-west.1"}},
                  warnings);
  EXPECT_TRUE(warnings.empty()) << warnings[0];
  EXPECT_EQ(c.every_ms, 1500u);
  EXPECT_EQ(c.push_url, "https://user:token@profiles.example:443/base");
  EXPECT_EQ(c.push_name, "orders/api-1");
  EXPECT_EQ(c.push_labels, "env=prod,region=eu-west.1");
  for (auto [text, ms] : std::vector<std::pair<const char*, uint32_t>>{
           {"100ms", 100}, {"30", 30000}, {"5m", 300000}, {"1h", 3600000}, {"24h", 86400000}, {"0.25s", 250}}) {
    EXPECT_EQ(load({{"UMBRA_EVERY", text}}, warnings).every_ms, ms) << text;
    EXPECT_TRUE(warnings.empty()) << text;
  }
}

// Each bad value: one line naming the variable, the value and what umbra does instead; nothing is pushed or
// written every period.
TEST(Config, BadPeriodsAndPushingSayWhatUmbraDoesInstead) {
  struct Case {
    const char* variable;
    const char* value;
    const char* instead;
  };
  for (const Case& bad : std::vector<Case>{{"UMBRA_EVERY", "99ms", "; no periodic reports"},
                                           {"UMBRA_EVERY", "25h", "; no periodic reports"},
                                           {"UMBRA_EVERY", "5 min", "; no periodic reports"},
                                           {"UMBRA_EVERY", "-1s", "; no periodic reports"},
                                           {"UMBRA_EVERY", "", "; no periodic reports"},
                                           {"UMBRA_PUSH", "pyroscope:4040", "; not pushing"},
                                           {"UMBRA_PUSH", "http://", "; not pushing"},
                                           {"UMBRA_PUSH", "http://host/ingest?name=x", "; not pushing"},
                                           {"UMBRA_PUSH", "http://a b", "; not pushing"},
                                           {"UMBRA_PUSH_NAME", "my app", "; pushing under the program's name"},
                                           {"UMBRA_PUSH_NAME", "app{x=y}", "; pushing under the program's name"},
                                           {"UMBRA_PUSH_LABELS", "env", "; pushing with the labels host, pid and mode only"},
                                           {"UMBRA_PUSH_LABELS", "env=a,b}=c", "; pushing with the labels host, pid and mode only"},
                                           {"UMBRA_PUSH_LABELS", "__name__=x", "; pushing with the labels host, pid and mode only"},
                                           {"UMBRA_PUSH_LABELS", "env=a=b", "; pushing with the labels host, pid and mode only"}}) {
    std::vector<std::string> warnings;
    Config c = load({{bad.variable, bad.value}}, warnings);
    std::string quoted = std::string(bad.variable) + "='" + bad.value + "'";
    ASSERT_EQ(warnings.size(), 1u) << quoted;
    EXPECT_EQ(warnings[0].rfind(quoted + " is not ", 0), 0u) << warnings[0];
    EXPECT_NE(warnings[0].find(bad.instead), std::string::npos) << warnings[0];
    EXPECT_TRUE(c == readme_defaults()) << quoted;
  }
}

}  // namespace
}  // namespace umbra
