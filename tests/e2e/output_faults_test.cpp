// A report that cannot be written where asked (full disk, read-only directory, a name too long): one clear line
// per file, a fallback in $TMPDIR, and the program's output and exit status unchanged.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "e2e_env.h"
#include "process.h"
#include "report_query.h"

namespace umbra::testing {
namespace {

// umbra writing <output>.*, falling back to `tmpdir`.
std::map<std::string, std::string> env_with_tmpdir(const std::string& output, const std::string& tmpdir) {
  auto env = profiler_env(output);
  env["TMPDIR"] = tmpdir;
  return env;
}

// The same, with files opened for writing under `dir` failing as `fault` (UMBRA_FAULT_FULL_DIR or
// UMBRA_FAULT_READONLY_DIR) says: see tests/native/umbra_fault_files.c.
std::map<std::string, std::string> faulty_env(const std::string& output, const std::string& tmpdir,
                                              const char* fault, const std::string& dir) {
  auto env = env_with_tmpdir(output, tmpdir);
  env["LD_PRELOAD"] = fault_files_library();
  env[fault] = dir;
  return env;
}

ProcessResult run_exit_paths(const std::map<std::string, std::string>& env) {
  ProcessResult r = run_process(app_command("ExitPaths", {"return"}), env);
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_EQ(r.out, "ending by return\n");
  return r;
}

// The fallback report, in a new private directory in `tmpdir`, is whole: the main thread with its 42 counted calls.
void expect_fallback_report(const std::string& tmpdir, const std::string& err) {
  size_t reports = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(tmpdir)) {
    if (entry.path().extension() != ".json") continue;
    ++reports;
    EXPECT_NE(err.find("wrote " + entry.path().string() + " instead"), std::string::npos) << err;
    JsonValue report = load_report(entry.path().string());
    const JsonValue* main = thread_with_root(report, "ExitPaths.Program.Main");
    ASSERT_NE(main, nullptr);
    EXPECT_EQ(total_calls(roots_of(*main), "ExitPaths.Program.Counted"), 42u);
  }
  EXPECT_EQ(reports, 1u) << err;
}

TEST(OutputFaults, FullDiskFallsBackToTmpdir) {
  std::string dir = scratch_dir("output_full");
  std::filesystem::create_directories(dir + "/full");
  std::filesystem::create_directories(dir + "/tmp");
  ProcessResult r = run_exit_paths(faulty_env(dir + "/full/r", dir + "/tmp", "UMBRA_FAULT_FULL_DIR", dir + "/full"));
  EXPECT_EQ(occurrences(r.err, "cannot write '" + dir + "/full/r.json' (No space left on device); wrote "), 1u) << r.err;
  EXPECT_EQ(occurrences(r.err, "cannot write '" + dir + "/full/r.txt' (No space left on device); wrote "), 1u) << r.err;
  expect_fallback_report(dir + "/tmp", r.err);
  EXPECT_TRUE(std::filesystem::is_empty(dir + "/full")) << "no half-written file is left behind";
}

TEST(OutputFaults, FullEverywhereSaysTheReportIsLost) {
  std::string dir = scratch_dir("output_full_everywhere");
  std::filesystem::create_directories(dir + "/full/tmp");
  ProcessResult r =
      run_exit_paths(faulty_env(dir + "/full/r", dir + "/full/tmp", "UMBRA_FAULT_FULL_DIR", dir + "/full"));
  EXPECT_EQ(occurrences(r.err, "(No space left on device); the json report is lost"), 1u) << r.err;
  EXPECT_EQ(occurrences(r.err, "(No space left on device); the text report is lost"), 1u) << r.err;
  EXPECT_NE(r.err.find("not captured (stats.drops); wrote nothing"), std::string::npos) << r.err;
}

TEST(OutputFaults, ReadOnlyDirectoryFallsBackToTmpdir) {
  std::string dir = scratch_dir("output_read_only");
  std::filesystem::create_directories(dir + "/ro");
  std::filesystem::create_directories(dir + "/tmp");
  ProcessResult r = run_exit_paths(faulty_env(dir + "/ro/r", dir + "/tmp", "UMBRA_FAULT_READONLY_DIR", dir + "/ro"));
  EXPECT_EQ(occurrences(r.err, "cannot write '" + dir + "/ro/r.json' (Read-only file system); wrote "), 1u) << r.err;
  expect_fallback_report(dir + "/tmp", r.err);
}

// The same with real permissions. Root writes anyway, so as root the program runs without the capabilities that
// let root ignore them (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH), through util-linux's setpriv.
TEST(OutputFaults, DirectoryWithoutWritePermissionFallsBackToTmpdir) {
  std::string dir = scratch_dir("output_no_permission");
  std::filesystem::create_directories(dir + "/locked");
  std::filesystem::create_directories(dir + "/tmp");
  std::filesystem::permissions(dir + "/locked", std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
  std::vector<std::string> argv = app_command("ExitPaths", {"return"});
  if (geteuid() == 0) {
    const char* caps = "-dac_override,-dac_read_search";
    argv.insert(argv.begin(), {"setpriv", "--inh-caps", caps, "--bounding-set", caps, "--"});
  }
  ProcessResult r = run_process(argv, env_with_tmpdir(dir + "/locked/r", dir + "/tmp"));
  std::filesystem::permissions(dir + "/locked", std::filesystem::perms::owner_all);
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_EQ(r.out, "ending by return\n");
  EXPECT_EQ(occurrences(r.err, "cannot write '" + dir + "/locked/r.json' (Permission denied); wrote "), 1u) << r.err;
  EXPECT_EQ(occurrences(r.err, "cannot write '" + dir + "/locked/r.txt' (Permission denied); wrote "), 1u) << r.err;
  expect_fallback_report(dir + "/tmp", r.err);
  EXPECT_TRUE(std::filesystem::is_empty(dir + "/locked"));
}

// A prefix under a regular file: the kernel refuses it for root too.
TEST(OutputFaults, PrefixUnderARegularFileFallsBackToTmpdir) {
  std::string dir = scratch_dir("output_under_file");
  std::filesystem::create_directories(dir + "/tmp");
  std::ofstream(dir + "/file") << "not a directory\n";
  ProcessResult r = run_exit_paths(env_with_tmpdir(dir + "/file/r", dir + "/tmp"));
  EXPECT_EQ(occurrences(r.err, "cannot write '" + dir + "/file/r.json' (Not a directory); wrote "), 1u) << r.err;
  EXPECT_EQ(occurrences(r.err, "cannot write '" + dir + "/file/r.txt' (Not a directory); wrote "), 1u) << r.err;
  expect_fallback_report(dir + "/tmp", r.err);
}

TEST(OutputFaults, NameTooLongFallsBackToTmpdir) {
  std::string dir = scratch_dir("output_long_name");
  std::filesystem::create_directories(dir + "/tmp");
  std::string prefix = dir + "/" + std::string(300, 'n');
  ProcessResult r = run_exit_paths(env_with_tmpdir(prefix, dir + "/tmp"));
  EXPECT_EQ(occurrences(r.err, "(File name too long); wrote "), 2u) << r.err;
  expect_fallback_report(dir + "/tmp", r.err);
}

}  // namespace
}  // namespace umbra::testing
