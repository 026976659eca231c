// The report is written however the program ends, and the program's exit code is kept.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>

#include "attach_target.h"
#include "e2e_env.h"
#include "process.h"
#include "report/display_text.h"
#include "report_query.h"

namespace umbra::testing {
namespace {

struct ExitCase {
  const char* how;
  int exit_code;
  const char* trigger;
  const char* open_frame = nullptr;  // the frame a signal found the program in
};

class ExitPaths : public ::testing::TestWithParam<ExitCase> {};

TEST_P(ExitPaths, ReportIsWrittenAndExitCodeKept) {
  const ExitCase& c = GetParam();
  std::string dir = scratch_dir(std::string("exit_") + c.how);
  ProcessResult r = run_process(with_app({launcher_path(), "run", "-o", dir + "/r", "--"}, "ExitPaths", {c.how}));
  EXPECT_EQ(r.exit_code, c.exit_code) << r.err;
  EXPECT_EQ(r.out, std::string("ending by ") + c.how + "\n");
  ASSERT_TRUE(std::filesystem::exists(dir + "/r.json")) << r.err;
  ASSERT_TRUE(std::filesystem::exists(dir + "/r.txt")) << r.err;
  JsonValue report = load_report(dir + "/r.json");
  EXPECT_EQ(report.find("stats")->find("report_trigger")->as_string(), c.trigger);
  // A signal's report is written while the program still runs, and says so.
  const bool by_signal = std::string(c.trigger).rfind("signal", 0) == 0;
  EXPECT_EQ(report.find("stats")->find("partial")->as_bool(), by_signal);
  const JsonValue* main = thread_with_root(report, "ExitPaths.Program.Main");
  ASSERT_NE(main, nullptr);
  EXPECT_EQ(total_calls(roots_of(*main), "ExitPaths.Program.Counted"), 42u);
  if (by_signal) {
    // The frame the program was in when the signal came is in the report, still open.
    EXPECT_EQ(total_calls(roots_of(*main), c.open_frame), 1u);
    EXPECT_NE(r.err.find("received: writing a partial report"), std::string::npos) << r.err;
  }
  // Exactly one summary line from the profiler.
  size_t first = r.err.find("umbra: shadow profile:");
  ASSERT_NE(first, std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("umbra: shadow profile:", first + 1), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    AllWays, ExitPaths,
    ::testing::Values(ExitCase{"return", 5, "shutdown"}, ExitCase{"exit", 7, "shutdown"},
                      ExitCase{"exit-from-worker", 9, "shutdown"},
                      ExitCase{"unhandled", 134, "unhandled_exception"},
                      ExitCase{"unhandled-on-worker", 134, "unhandled_exception"},
                      ExitCase{"sigterm", 143, "signal_sigterm", "ExitPaths.Program.SignalSelfAndWait"},
                      ExitCase{"sigint", 130, "signal_sigint", "ExitPaths.Program.SignalSelfAndWait"},
                      ExitCase{"native-abort", 134, "signal_sigabrt", "ExitPaths.Program.AbortNatively"}),
    [](const ::testing::TestParamInfo<ExitCase>& info) {
      std::string name = info.param.how;
      for (char& ch : name)
        if (ch == '-') ch = '_';
      return name;
    });

// Environment.FailFast resets SIGABRT to its default action before aborting, and calls no profiler callback and
// no exit handler: nothing of umbra's runs, so no report can be saved. The program still ends exactly as it would
// without umbra, and the launcher says why there is no report.
TEST(ExitPathsUnhandled, FailFastEndsTheProgramUnchangedAndTheLauncherSaysWhy) {
  for (const char* how : {"failfast", "failfast-from-worker"}) {
    std::string dir = scratch_dir(std::string("exit_") + how);
    ProcessResult r = run_process(with_app({launcher_path(), "run", "-o", dir + "/r", "--"}, "ExitPaths", {how}));
    EXPECT_EQ(r.exit_code, 134) << r.err;
    EXPECT_EQ(r.out, std::string("ending by ") + how + "\n");
    EXPECT_NE(r.err.find("deliberate fail-fast"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir + "/r.json"));
    EXPECT_NE(r.err.find("umbra: the program was ended by signal 6 (Aborted) before a report was written"),
              std::string::npos)
        << r.err;
  }
}

TEST(ExitPathsUnhandled, ExceptionsCaughtByRuntimeCodeAreNotUnhandled) {
  // A throwing type initializer, a throw through reflection, a throwing filter: the runtime catches each, the
  // program goes on, and the report covers the whole run.
  std::string dir = scratch_dir("exit_runtime_catches");
  ProcessResult r =
      run_process(with_app({launcher_path(), "run", "-o", dir + "/r", "--"}, "ExitPaths", {"runtime-catches"}));
  ASSERT_EQ(r.exit_code, 5) << r.err;
  JsonValue report = load_report(dir + "/r.json");
  EXPECT_EQ(report.find("stats")->find("report_trigger")->as_string(), "shutdown");
  const JsonValue* main = thread_with_root(report, "ExitPaths.Program.Main");
  ASSERT_NE(main, nullptr);
  EXPECT_EQ(total_calls(roots_of(*main), "ExitPaths.Program.AfterRuntimeCatches"), 42u);
  EXPECT_EQ(calls_of(*find_path(*main, {"ExitPaths.Program.Main", "ExitPaths.Program.RuntimeCatches"})), 1u);
  const JsonValue* drops = report.find("stats")->find("drops");
  EXPECT_EQ(drops->find("unmatched_leave")->as_uint(), 0u);
}

TEST(ExitPathsUnhandled, TheThrowingFrameIsStillOpenInTheReport) {
  std::string dir = scratch_dir("exit_unhandled_frame");
  run_process(with_app({launcher_path(), "run", "-o", dir + "/r", "--"}, "ExitPaths", {"unhandled"}));
  JsonValue report = load_report(dir + "/r.json");
  const JsonValue* main = thread_with_root(report, "ExitPaths.Program.Main");
  ASSERT_NE(main, nullptr);
  const JsonValue* fail = find_path(*main, {"ExitPaths.Program.Main", "ExitPaths.Program.Fail"});
  ASSERT_NE(fail, nullptr);
  EXPECT_EQ(calls_of(*fail), 1u);
}

// A report's "command_line" as the arguments they were.
std::vector<std::string> command_line_of(const JsonValue& report) {
  std::vector<std::string> args;
  for (const JsonValue& arg : report.find("command_line")->as_array()) args.push_back(arg.as_string());
  return args;
}

// A profiled program that starts .NET processes of its own: each process writes its own report, the launched one
// at <prefix>.json and each descendant at <prefix>.<pid>.json, and the launcher lists them all, each process named
// by its program and command line. A descendant's report is written by a copy of it once it has ended.
TEST(ChildProcesses, EachProcessWritesItsOwnReport) {
  std::string dir = scratch_dir("child_processes");
  ProcessResult r = run_process(with_app({launcher_path(), "run", "-o", dir + "/r", "--"}, "ExitPaths", {"spawn"}));
  ASSERT_EQ(r.exit_code, 5) << r.err;
  // A descendant says nothing on stderr (its parent may read it): umbra's lines go to its <prefix>.<pid>.log.
  const std::string child_line = "child said 'ending by return' and '' on stderr, and exited with 5\n";
  EXPECT_EQ(r.out, "ending by spawn\n" + child_line + child_line);

  JsonValue parent = load_report(dir + "/r.json");
  // `dotnet ExitPaths.dll` names the assembly; a program run by its own executable (an older runtime) is that.
  const std::string program = test_runtime() == "net10" ? "ExitPaths.dll" : "ExitPaths";
  EXPECT_EQ(parent.find("program")->as_string(), program);
  EXPECT_EQ(command_line_of(parent), app_command("ExitPaths", {"spawn"}));
  const std::string launched_line = "umbra: report of pid " + std::to_string(parent.find("pid")->as_int()) + ", " +
                                    program + " (" + display_command_line(app_command("ExitPaths", {"spawn"})) +
                                    "): " + dir + "/r.json, " + dir + "/r.txt\n";
  EXPECT_NE(r.err.find(launched_line), std::string::npos) << launched_line << r.err;
  const JsonValue* main = thread_with_root(parent, "ExitPaths.Program.Main");
  ASSERT_NE(main, nullptr);
  EXPECT_EQ(total_calls(roots_of(*main), "ExitPaths.Program.RunChild"), 2u);

  std::set<int64_t> pids = {parent.find("pid")->as_int()};
  std::vector<std::string> child_reports;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (name.size() > 7 && name.compare(0, 2, "r.") == 0 && name.compare(name.size() - 5, 5, ".json") == 0 &&
        name != "r.json")
      child_reports.push_back(entry.path().string());
  }
  ASSERT_EQ(child_reports.size(), 2u) << r.err;
  for (const auto& path : child_reports) {
    JsonValue child = load_report(path);
    int64_t pid = child.find("pid")->as_int();
    EXPECT_NE(path.find("/r." + std::to_string(pid) + ".json"), std::string::npos) << path;
    pids.insert(pid);
    const JsonValue* child_main = thread_with_root(child, "ExitPaths.Program.Main");
    ASSERT_NE(child_main, nullptr) << path;
    EXPECT_EQ(total_calls(roots_of(*child_main), "ExitPaths.Program.Counted"), 42u);
    // The child runs the same program with "return": its command line says so, and so does the launcher's list.
    EXPECT_EQ(child.find("program")->as_string(), program);
    std::vector<std::string> args = command_line_of(child);
    ASSERT_GE(args.size(), 2u);
    EXPECT_EQ(args.back(), "return");
    std::string child_prefix = dir + "/r." + std::to_string(pid);
    std::string listed = "umbra:   pid " + std::to_string(pid) + ", " + program + " (" + display_command_line(args) +
                         "): " + child_prefix + ".json, " + child_prefix + ".txt\n";
    EXPECT_NE(r.err.find(listed), std::string::npos) << "the launcher names " << path << ":\n" << listed << r.err;
    std::string log = dir + "/r." + std::to_string(pid) + ".log";
    std::ifstream in(log);
    std::string text((std::istreambuf_iterator<char>(in)), {});
    EXPECT_NE(text.find("umbra: shadow profile:"), std::string::npos) << log << ": " << text;
    // Written by a copy of the child made as it ended (its parent reads its output until it has ended): the report
    // still names the child, and the launcher waited for the copy before it listed the reports.
    const std::string by_copy = "umbra: the report is written by process ";
    size_t at = text.find(by_copy);
    ASSERT_NE(at, std::string::npos) << log << ": " << text;
    EXPECT_NE(std::stoll(text.substr(at + by_copy.size())), pid) << text;
  }
  EXPECT_EQ(pids.size(), 3u);
  EXPECT_NE(r.err.find("umbra: reports of 2 descendant processes:\n"), std::string::npos) << r.err;
}

// A child whose report takes a while (two million nodes), its parent ending as soon as the child has: the copy
// writing the child's report outlives both, and the launcher waits for it before it lists the reports.
TEST(ChildProcesses, TheLauncherWaitsForADescendantsReportWrittenAfterItEnded) {
  std::string dir = scratch_dir("child_processes_wide");
  ProcessResult r = run_process(with_app({launcher_path(), "run", "-o", dir + "/r", "--"}, "ExitPaths", {"spawn-wide"}));
  ASSERT_EQ(r.exit_code, 5) << r.err;
  std::string child_report;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (name != "r.json" && name.rfind("r.", 0) == 0 && name.ends_with(".json")) child_report = entry.path().string();
  }
  ASSERT_FALSE(child_report.empty()) << "no report of the child when the launcher returned\n" << r.err;
  std::string child_text = child_report.substr(0, child_report.size() - 5) + ".txt";
  EXPECT_TRUE(std::filesystem::exists(child_text)) << r.err;
  EXPECT_NE(r.err.find(child_report + ", " + child_text), std::string::npos) << "the launcher lists both\n" << r.err;
  // The copy's last line, once both files are whole (the calls: Left's and Right's, Main's and the runtime's own).
  std::ifstream in(child_report.substr(0, child_report.size() - 5) + ".log");
  std::string log((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(log.find("wrote " + child_report + ", " + child_text + "\n"), std::string::npos) << log;
  EXPECT_NE(log.find("the report is written by process "), std::string::npos) << log;
}

// A live report writer under `launcher_pid` (0 if none): other tests' launchers may run theirs meanwhile.
pid_t report_writer(pid_t launcher_pid) {
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    char* end = nullptr;
    long pid = std::strtol(entry.path().filename().c_str(), &end, 10);
    if (pid <= 0 || *end != '\0') continue;
    std::optional<launcher::ProcessStat> stat = launcher::read_process_stat(pid);
    if (!stat || stat->name != "umbra-writer") continue;
    for (pid_t up = stat->parent; up > 1;) {
      if (up == launcher_pid) return pid_t(pid);
      std::optional<launcher::ProcessStat> above = launcher::read_process_stat(up);
      up = above ? above->parent : 0;
    }
  }
  return 0;
}

// The pids of `parent`'s children.
std::string children_of(pid_t parent) {
  std::string task = "/proc/" + std::to_string(parent) + "/task/" + std::to_string(parent) + "/children";
  std::ifstream in(task);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

// A signal to the launcher while it waits for a report writer ends the wait: the writer is stopped here, so without
// that the launcher would wait for good; the writer, let go on, still writes the report.
TEST(ChildProcesses, ASignalEndsTheLaunchersWaitForReportWriters) {
  std::string dir = scratch_dir("child_processes_interrupted");
  pid_t writer = 0;
  ProcessResult r = run_process(
      with_app({launcher_path(), "run", "-o", dir + "/r", "--"}, "ExitPaths", {"spawn-wide"}), {}, 60,
      [&](pid_t launcher) {
        for (int i = 0; i < 60000 && writer == 0; ++i) {
          writer = report_writer(launcher);
          if (writer == 0) usleep(1000);
        }
        if (writer == 0) return;
        kill(writer, SIGSTOP);
        // The program reaped: the launcher's only child is the writer (a signal before would go to the program).
        std::string only_writer = std::to_string(writer) + " ";
        for (int i = 0; i < 30000 && children_of(launcher) != only_writer; ++i) usleep(1000);
        kill(launcher, SIGTERM);
      });
  if (writer != 0) kill(writer, SIGCONT);
  ASSERT_NE(writer, 0) << "no report writer seen\n" << r.err;
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_NE(r.err.find("umbra: signal 15: not waiting for 1 report writer(s)"), std::string::npos) << r.err;
  for (int i = 0; i < 60000 && kill(writer, 0) == 0; ++i) usleep(1000);
  size_t child_reports = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    child_reports += name != "r.json" && name.rfind("r.", 0) == 0 && name.ends_with(".json");
  }
  EXPECT_EQ(child_reports, 1u) << "the writer let go on writes the report";
}

// The reports of the program's children, <prefix>.<pid>.json, in `dir`: how many there are whose Main counted the
// child's 42 calls.
size_t whole_child_reports(const std::string& dir, const std::string& name_start, const std::string& launched) {
  size_t whole = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (name.rfind(name_start, 0) != 0 || name == launched || !name.ends_with(".json")) continue;
    JsonValue child = load_report(entry.path().string());
    const JsonValue* child_main = thread_with_root(child, "ExitPaths.Program.Main");
    if (child_main && total_calls(roots_of(*child_main), "ExitPaths.Program.Counted") == 42u) ++whole;
  }
  return whole;
}

// A relative prefix, and the default one, name the launcher's working directory for every process of the run: the
// program's children run in a directory of their own (/proc, where nothing can be written), and their reports still
// land beside the launched program's.
TEST(ChildProcesses, ARelativePrefixNamesTheLaunchersDirectoryForEveryProcess) {
  std::string dir = scratch_dir("child_processes_relative");
  auto run_in_dir = [&](std::vector<std::string> launcher_args) {
    std::vector<std::string> argv = {"/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", dir, launcher_path(), "run"};
    argv.insert(argv.end(), launcher_args.begin(), launcher_args.end());
    argv.push_back("--");
    return run_process(with_app(argv, "ExitPaths", {"spawn"}));
  };
  ProcessResult asked = run_in_dir({"-o", "reports/r"});
  ASSERT_EQ(asked.exit_code, 5) << asked.err;
  EXPECT_TRUE(std::filesystem::exists(dir + "/reports/r.json")) << asked.err;
  EXPECT_EQ(whole_child_reports(dir + "/reports", "r.", "r.json"), 2u) << asked.err;

  ProcessResult by_default = run_in_dir({});
  ASSERT_EQ(by_default.exit_code, 5) << by_default.err;
  std::string launched;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (name.rfind("umbra-", 0) == 0 && name.ends_with(".json") && std::count(name.begin(), name.end(), '.') == 1)
      launched = name;
  }
  ASSERT_FALSE(launched.empty()) << by_default.err;
  EXPECT_EQ(whole_child_reports(dir, launched.substr(0, launched.size() - 4), launched), 2u) << by_default.err;
}

}  // namespace
}  // namespace umbra::testing
