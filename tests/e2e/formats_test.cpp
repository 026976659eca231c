// The report formats on real profiles: speedscope files that speedscope's own schema accepts, collapsed stacks,
// and `umbra report` converting a saved report (byte for byte the same as the profiler's own output) or refusing
// bad input with exit status 2.
#include <gtest/gtest.h>

#include <fstream>

#include "e2e_env.h"
#include "process.h"
#include "report_query.h"

namespace umbra::testing {
namespace {

ProcessResult validate_speedscope(const std::vector<std::string>& files) {
  std::vector<std::string> argv = {UMBRA_TEST_NODE, UMBRA_TEST_SPEEDSCOPE_VALIDATOR, UMBRA_TEST_NODE_MODULES};
  argv.insert(argv.end(), files.begin(), files.end());
  return run_process(argv);
}

class Formats : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(scratch_dir("formats"));
    for (const char* mode : {"shadow", "sampled"}) {
      // Exact call times, so that short methods such as Fib have times of their own to rank and draw by.
      ProcessResult r =
          run_process(with_app({launcher_path(), "run", "--mode", mode, "--interval-ms", "1", "--exact-times",
                                "--format", "json,text,collapsed,speedscope", "-o", *dir_ + "/" + mode, "--"},
                               "KnownCounts"));
      ASSERT_EQ(r.exit_code, 3) << r.err;
    }
  }
  static void TearDownTestSuite() { delete dir_; }
  static std::string path(const std::string& name) { return *dir_ + "/" + name; }
  static std::string* dir_;
};
std::string* Formats::dir_;

TEST_F(Formats, SpeedscopeFilesMatchSpeedscopesSchema) {
  ProcessResult v = validate_speedscope({path("shadow.speedscope.json"), path("sampled.speedscope.json")});
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
  EXPECT_NE(v.out.find("evented profiles"), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("sampled profiles"), std::string::npos) << v.out;
}

TEST_F(Formats, TheValidatorRejectsABrokenFile) {
  std::ofstream(path("broken.speedscope.json"))
      << R"({"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[{"name":"a"}]},)"
      << R"("profiles":[{"type":"evented","name":"t","unit":"nanoseconds","startValue":0,"endValue":10,)"
      << R"("events":[{"type":"O","at":0,"frame":0}]}]})";
  EXPECT_NE(validate_speedscope({path("broken.speedscope.json")}).exit_code, 0);
}

TEST_F(Formats, CollapsedStacksCarryTheTree) {
  std::string shadow = read_file(path("shadow.collapsed"));
  std::string sampled = read_file(path("sampled.collapsed"));
  EXPECT_FALSE(sampled.empty());
  // Every line is "frame;frame;... N".
  for (const std::string* text : {&shadow, &sampled}) {
    size_t start = 0;
    while (start < text->size()) {
      size_t end = text->find('\n', start);
      std::string line = text->substr(start, end - start);
      auto space = line.rfind(' ');
      ASSERT_NE(space, std::string::npos) << line;
      EXPECT_GT(std::stoull(line.substr(space + 1)), 0u) << line;
      start = end + 1;
    }
  }
  EXPECT_NE(sampled.find("KnownCounts.Program.Main"), std::string::npos);
}

TEST_F(Formats, ReportRoundTripsToTheSameCollapsedStacks) {
  for (const char* mode : {"shadow", "sampled"}) {
    std::string saved = path(std::string(mode) + ".json");
    ProcessResult r = run_process(
        {launcher_path(), "report", saved, "--format", "collapsed", "-o", path(std::string(mode) + "-again")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(read_file(path(std::string(mode) + "-again.collapsed")), read_file(path(std::string(mode) + ".collapsed")))
        << mode;
  }
}

TEST_F(Formats, ReportConvertsFiltersAndRanks) {
  ProcessResult r = run_process({launcher_path(), "report", path("shadow.json"), "--thread", "Worker-2", "--format",
                                 "json,speedscope", "-o", path("worker2")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  JsonValue only = load_report(path("worker2.json"));
  ASSERT_EQ(threads_of(only).size(), 1u);
  EXPECT_EQ(total_calls(roots_of(threads_of(only)[0]), "KnownCounts.Program.Work"), 200u);
  EXPECT_EQ(validate_speedscope({path("worker2.speedscope.json")}).exit_code, 0);

  ProcessResult merged = run_process({launcher_path(), "report", path("shadow.json"), "--merge-threads", "--format",
                                      "json", "-o", path("merged")});
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  JsonValue all = load_report(path("merged.json"));
  ASSERT_EQ(threads_of(all).size(), 1u);
  EXPECT_EQ(total_calls(roots_of(threads_of(all)[0]), "KnownCounts.Program.Work"), 1000u);  // 100+200+300+400
  EXPECT_EQ(total_calls(roots_of(threads_of(all)[0]), "KnownCounts.Program.ShortLivedBody"), 500u);

  ProcessResult threads = run_process({launcher_path(), "report", path("shadow.json"), "--format", "collapsed",
                                       "--collapsed-threads", "--collapsed-weight", "calls", "-o",
                                       path("by-thread")});
  ASSERT_EQ(threads.exit_code, 0) << threads.err;
  EXPECT_NE(read_file(path("by-thread.collapsed")).find("\nWorker-3;System.Threading.Thread.StartCallback;"),
            std::string::npos);

  ProcessResult top = run_process({launcher_path(), "report", path("shadow.json"), "--top", "500"});
  ASSERT_EQ(top.exit_code, 0) << top.err;
  EXPECT_NE(top.out.find("self ms"), std::string::npos);
  EXPECT_NE(top.out.find("21891  "), std::string::npos) << "Fib with its exact calls: " << top.out;
}

TEST_F(Formats, BadReportsGiveOneLineAndStatusTwo) {
  std::ofstream(path("empty.json"));
  std::ofstream(path("corrupt.json")) << "{\"schema\": \"umbra-report/1\", \"threads\": [}";
  std::string whole = read_file(path("shadow.json"));
  // Cut just after the opening bracket of "threads": the document ends where a value must follow.
  std::ofstream(path("truncated.json")) << whole.substr(0, whole.find("\"threads\":[") + 11);
  std::ofstream(path("other.json")) << "{\"hello\": 1}";
  std::ofstream(path("wrong-type.json"))
      << R"({"schema":"umbra-report/1","mode":"shadow","threads":[{"roots":[{"name":"a","calls":-3,"children":[]}]}]})";
  struct Case {
    const char* file;
    const char* says;
  } cases[] = {{"empty.json", "line 1, column 1"},
               {"corrupt.json", "line 1, column 42 (byte 41): expected a value"},
               {"truncated.json", "unexpected end of input"},
               {"other.json", "not \"umbra-report/2\" or \"umbra-report/1\""},
               {"wrong-type.json", "threads[0].roots[0].calls: not a whole number from 0 to 18446744073709551615"},
               {"missing.json", "cannot read"}};
  for (const auto& c : cases) {
    ProcessResult r = run_process({launcher_path(), "report", path(c.file), "--format", "text"});
    EXPECT_EQ(r.exit_code, 2) << c.file;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.file << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << c.file << ": " << r.err;
  }
}

}  // namespace
}  // namespace umbra::testing
