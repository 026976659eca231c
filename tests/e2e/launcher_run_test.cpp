// `umbra run` itself: finding the library (UMBRA_LIBRARY) and saying when there is no report.
#include <gtest/gtest.h>

#include <filesystem>

#include "e2e_env.h"
#include "process.h"
#include "report_query.h"
#include "util/version.h"

namespace umbra::testing {
namespace {

// A launcher copied away from libumbra.so finds nothing next to itself: it needs UMBRA_LIBRARY, and with it the
// program is profiled as usual (at the default log level, which says nothing of the mode).
TEST(LauncherRun, UmbraLibraryFindsALibraryThatIsNotNextToTheLauncher) {
  std::string dir = scratch_dir("launcher_library");
  std::filesystem::create_directories(dir + "/bin");
  const std::string moved = dir + "/bin/umbra";
  std::filesystem::copy_file(launcher_path(), moved);

  for (const std::string& library : {std::string(kUnset), dir + "/bin/missing.so"}) {
    ProcessResult lost = run_process({moved, "run", "-o", dir + "/lost", "--", "true"}, {{"UMBRA_LIBRARY", library}});
    EXPECT_EQ(lost.exit_code, 2) << library;
    EXPECT_EQ(lost.err, "umbra: cannot find libumbra.so next to " + moved + " (set UMBRA_LIBRARY to its path)\n")
        << library;
    EXPECT_FALSE(std::filesystem::exists(dir + "/lost.json"));
  }

  ProcessResult found = run_process(with_app({moved, "run", "-o", dir + "/r", "--"}, "ExitPaths", {"return"}),
                                    {{"UMBRA_LIBRARY", library_path()}});
  ASSERT_EQ(found.exit_code, 5) << found.err;
  JsonValue report = load_report(dir + "/r.json");
  const JsonValue* main = thread_with_root(report, "ExitPaths.Program.Main");
  ASSERT_NE(main, nullptr);
  EXPECT_EQ(total_calls(roots_of(*main), "ExitPaths.Program.Counted"), 42u);
  EXPECT_EQ(found.err.find("shadow mode: "), std::string::npos) << "an info line at the default level (warn)";
}

// `-o DIR/prefix` with a DIR that is not there: made, as `mkdir -p` would, and the reports are where asked.
TEST(LauncherRun, AMissingOutputDirectoryIsMade) {
  std::string dir = scratch_dir("launcher_missing_directory");
  const std::string prefix = dir + "/made/for/it/r";
  ProcessResult r = run_process(with_app({launcher_path(), "run", "-o", prefix, "--"}, "ExitPaths", {"return"}));
  ASSERT_EQ(r.exit_code, 5) << r.err;
  EXPECT_TRUE(std::filesystem::is_directory(dir + "/made/for/it"));
  EXPECT_TRUE(std::filesystem::exists(prefix + ".json")) << r.err;
  EXPECT_TRUE(std::filesystem::exists(prefix + ".txt")) << r.err;
  EXPECT_EQ(r.err.find("cannot write"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("): " + prefix + ".json, " + prefix + ".txt\n"), std::string::npos) << r.err;
}

// `umbra --version` says which umbra this is, and every report it writes says the same.
TEST(LauncherRun, VersionIsPrintedAndEveryReportStatesIt) {
  const std::string version = umbra_version();
  ASSERT_FALSE(version.empty());
  ProcessResult printed = run_process({launcher_path(), "--version"});
  EXPECT_EQ(printed.exit_code, 0) << printed.err;
  EXPECT_EQ(printed.out, "umbra " + version + "\n");
  EXPECT_EQ(printed.err, "");

  std::string dir = scratch_dir("launcher_version");
  ProcessResult r = run_process(with_app({launcher_path(), "run", "-o", dir + "/r", "--"}, "ExitPaths", {"return"}));
  ASSERT_EQ(r.exit_code, 5) << r.err;
  EXPECT_EQ(load_report(dir + "/r.json").find("umbra_version")->as_string(), version);
  std::string text = read_file(dir + "/r.txt");
  EXPECT_EQ(text.rfind("umbra " + version + " shadow profile of pid ", 0), 0u) << text.substr(0, 200);
}

TEST(LauncherRun, AProgramThatWritesNoReportIsNamedWithThePrefix) {
  std::string dir = scratch_dir("launcher_no_report");
  ProcessResult r = run_process({launcher_path(), "run", "-o", dir + "/r", "--", "sh", "-c", "exit 3"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err, "umbra: no report at " + dir + "/r.* (see the messages above)\n");
}

}  // namespace
}  // namespace umbra::testing
