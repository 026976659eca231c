#include "launcher.h"

#include <gtest/gtest.h>

namespace umbra::launcher {
namespace {

TEST(Launcher, OptionsBecomeEnvironment) {
  auto r = parse_command_line({"run", "--mode", "shadow", "--interval-ms", "5", "-o", "/tmp/p", "--format",
                               "json", "--min-percent", "1", "--allow-inlining", "--",
                               "dotnet", "app.dll", "--mode"});
  ASSERT_TRUE(r.run) << r.error;
  EXPECT_EQ(r.run->command, (std::vector<std::string>{"dotnet", "app.dll", "--mode"}));
  EXPECT_EQ(*r.run->output_prefix, "/tmp/p");
  std::vector<std::pair<std::string, std::string>> expected = {
      {"UMBRA_MODE", "shadow"}, {"UMBRA_INTERVAL_MS", "5"},       {"UMBRA_OUTPUT", "/tmp/p"},
      {"UMBRA_FORMATS", "json"}, {"UMBRA_MIN_PERCENT", "1"},      {"UMBRA_ALLOW_INLINING", "1"}};
  EXPECT_EQ(r.run->environment, expected);
}

TEST(Launcher, CommandWithoutDoubleDash) {
  auto r = parse_command_line({"run", "dotnet", "app.dll"});
  ASSERT_TRUE(r.run);
  EXPECT_EQ(r.run->command, (std::vector<std::string>{"dotnet", "app.dll"}));
}

TEST(Launcher, LaterFormatsAreAcceptedNow) {
  auto r = parse_command_line({"run", "--format", "collapsed,speedscope,html", "--", "x"});
  EXPECT_TRUE(r.run) << r.error;
}

TEST(Launcher, BadCommandLinesSayWhatIsWrong) {
  struct Case {
    std::vector<std::string> args;
    const char* error;
  } cases[] = {
      {{}, "missing command"},
      {{"record"}, "unknown command 'record'"},
      {{"run", "--mode", "fast", "--", "x"}, "--mode 'fast' is not shadow or sampled"},
      {{"run", "--interval-ms", "0", "--", "x"}, "--interval-ms '0'"},
      {{"run", "--interval-ms"}, "--interval-ms needs a value"},
      {{"run", "--format", "pdf", "--", "x"}, "unknown format 'pdf'"},
      {{"run", "--log-level", "loud", "--", "x"}, "--log-level 'loud' is not trace"},
      {{"run", "--min-percent", "101", "--", "x"}, "--min-percent '101'"},
      {{"run", "--frobnicate", "--", "x"}, "unknown option '--frobnicate'"},
      {{"run", "--"}, "no command to run"},
      {{"run", "-o", "", "--", "x"}, "needs a non-empty prefix"},
  };
  for (const auto& c : cases) {
    auto r = parse_command_line(c.args);
    EXPECT_FALSE(r.run);
    EXPECT_NE(r.error.find(c.error), std::string::npos) << r.error;
  }
}

// Every option that takes a value, with every kind of bad value: the error names the option and the value.
TEST(Launcher, EveryOptionWithEveryKindOfBadValue) {
  const char* options[] = {"--mode",         "--interval-ms", "--format", "--min-percent",
                           "--reconcile-ms", "--hooks",       "--max-depth", "--log-level"};
  const char* values[] = {"", "-5", "99999999999999999999999999", "1e400", "abc", "turbo", " 10", "0x10"};
  for (const char* option : options) {
    for (const char* value : values) {
      auto r = parse_command_line({"run", option, value, "--", "dotnet", "app.dll"});
      std::string quoted = std::string(option) + " '" + value + "' ";
      EXPECT_FALSE(r.run) << quoted;
      EXPECT_EQ(r.error.rfind(quoted, 0), 0u) << r.error;
      EXPECT_EQ(r.error.find('\n'), std::string::npos) << r.error;
    }
  }
}

TEST(Launcher, UnknownOptionsAreNamed) {
  for (const char* option : {"--frobnicate", "-x", "--mode=sampled", "--Mode", "---", "-"}) {
    auto r = parse_command_line({"run", option, "--", "dotnet", "app.dll"});
    EXPECT_FALSE(r.run) << option;
    EXPECT_EQ(r.error, std::string("unknown option '") + option + "'");
  }
}

TEST(Launcher, AttachTakesThePidTheDurationAndTheOptionsOfRun) {
  auto r = parse_command_line({"attach", "4242", "--duration", "2.5", "--interval-ms", "1", "-o", "out/p", "--format",
                               "json", "--mode", "shadow"});
  ASSERT_TRUE(r.attach) << r.error;
  EXPECT_FALSE(r.run);
  EXPECT_EQ(r.attach->pid, 4242);
  EXPECT_EQ(r.attach->duration_ms, 2500u);
  EXPECT_EQ(*r.attach->output_prefix, "out/p");
  std::vector<std::pair<std::string, std::string>> expected = {
      {"UMBRA_INTERVAL_MS", "1"}, {"UMBRA_OUTPUT", "out/p"}, {"UMBRA_FORMATS", "json"}, {"UMBRA_MODE", "shadow"}};
  EXPECT_EQ(r.attach->environment, expected);
  auto until_stopped = parse_command_line({"attach", "7"});
  ASSERT_TRUE(until_stopped.attach) << until_stopped.error;
  EXPECT_EQ(until_stopped.attach->duration_ms, 0u);
}

TEST(Launcher, BadAttachCommandLinesSayWhatIsWrong) {
  struct Case {
    std::vector<std::string> args;
    const char* error;
  } cases[] = {
      {{"attach"}, "attach needs the process id of a running .NET program"},
      {{"attach", "abc"}, "attach: 'abc' is not a process id"},
      {{"attach", "0"}, "attach: '0' is not a process id"},
      {{"attach", "-5"}, "attach: '-5' is not a process id"},
      {{"attach", "99999999999"}, "attach: '99999999999' is not a process id"},
      {{"attach", "7", "--duration"}, "--duration needs a value"},
      {{"attach", "7", "--duration", "0"}, "--duration '0' is not a number of seconds above 0"},
      {{"attach", "7", "--duration", "-1"}, "--duration '-1' is not a number of seconds above 0"},
      {{"attach", "7", "--duration", "1e3"}, "--duration '1e3' is not a number of seconds above 0"},
      {{"attach", "7", "--interval-ms", "0"}, "--interval-ms '0'"},
      {{"attach", "7", "--", "dotnet"}, "unknown option '--'"},
      {{"attach", "7", "extra"}, "unknown option 'extra'"},
  };
  for (const auto& c : cases) {
    auto r = parse_command_line(c.args);
    EXPECT_FALSE(r.attach);
    EXPECT_EQ(r.error.rfind(c.error, 0), 0u) << r.error;
  }
}

TEST(Launcher, Version) {
  EXPECT_TRUE(parse_command_line({"--version"}).version);
  EXPECT_TRUE(parse_command_line({"version"}).version);
  EXPECT_FALSE(parse_command_line({"run", "--", "dotnet", "--version"}).version);
  EXPECT_NE(usage().find("--version"), std::string::npos);
}

TEST(Launcher, Help) {
  EXPECT_TRUE(parse_command_line({"--help"}).help);
  EXPECT_TRUE(parse_command_line({"run", "-h"}).help);
  EXPECT_NE(usage().find("UMBRA_OUTPUT"), std::string::npos);
  EXPECT_NE(usage().find("umbra attach PID [--duration S] [options]"), std::string::npos);
  EXPECT_TRUE(parse_command_line({"attach", "7", "--help"}).help);
}

}  // namespace
}  // namespace umbra::launcher
