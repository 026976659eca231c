// The report formats on real profiles: speedscope files that speedscope's own schema accepts, collapsed stacks,
// and `umbra report` converting a saved report (byte for byte the same as the profiler's own output) or refusing
// bad input with exit status 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

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
      // Exact call times, so that short methods such as Fib have times of their own to rank and draw by; every
      // method hooked in shadow mode, the framework's thread start among them.
      std::vector<std::string> argv = {launcher_path(), "run", "--mode", mode, "--interval-ms", "1", "--exact-times",
                                       "--format", "json,text,collapsed,speedscope", "-o", *dir_ + "/" + mode, "--"};
      if (std::string(mode) == "shadow") argv.insert(argv.begin() + 4, {"--hooks-for", "all"});
      ProcessResult r = run_process(with_app(argv, "KnownCounts"));
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
  // Shadow mode's exact trees are evented profiles; the samples taken on a CPU, in both modes, sampled ones.
  EXPECT_NE(v.out.find("evented,sampled profiles"), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("sampled.speedscope.json"), std::string::npos) << v.out;
}

TEST_F(Formats, TheValidatorRejectsABrokenFile) {
  std::ofstream(path("broken.speedscope.json"))
      << R"({"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[{"name":"a"}]},)"
      << R"("profiles":[{"type":"evented","name":"t","unit":"nanoseconds","startValue":0,"endValue":10,)"
      << R"("events":[{"type":"O","at":0,"frame":0}]}]})";
  EXPECT_NE(validate_speedscope({path("broken.speedscope.json")}).exit_code, 0);
}

// Every line is "frame;frame;... N" with N > 0, and the N add up to the report's samples (the default weight).
TEST_F(Formats, CollapsedStacksCarryTheTree) {
  for (const char* mode : {"shadow", "sampled"}) {
    SCOPED_TRACE(mode);
    std::string text = read_file(path(std::string(mode) + ".collapsed"));
    ASSERT_FALSE(text.empty());
    ASSERT_EQ(text.back(), '\n');
    uint64_t weight = 0;
    for (size_t start = 0; start < text.size();) {
      size_t end = text.find('\n', start);
      std::string line = text.substr(start, end - start);
      start = end + 1;
      auto space = line.rfind(' ');
      ASSERT_NE(space, std::string::npos) << line;
      ASSERT_GT(space, 0u) << line;
      uint64_t n = std::stoull(line.substr(space + 1));
      EXPECT_GT(n, 0u) << line;
      weight += n;
    }
    JsonValue report = load_report(path(std::string(mode) + ".json"));
    uint64_t samples = 0;
    for (const auto& t : threads_of(report))
      for (const auto& r : roots_of(t)) samples += samples_of(r);
    EXPECT_GT(samples, 0u);
    EXPECT_EQ(weight, samples);
    EXPECT_NE(text.find("KnownCounts.Program.Main"), std::string::npos);
  }
}

// --collapsed-weight cpu_samples: the stacks of the samples taken on a CPU, adding up to the report's.
TEST_F(Formats, CollapsedCpuSamplesAddUpToTheReports) {
  for (const char* mode : {"shadow", "sampled"}) {
    SCOPED_TRACE(mode);
    ProcessResult r =
        run_process({launcher_path(), "report", path(std::string(mode) + ".json"), "--format", "collapsed",
                     "--collapsed-weight", "cpu_samples", "-o", path(std::string(mode) + "-cpu")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::string text = read_file(path(std::string(mode) + "-cpu.collapsed"));
    uint64_t weight = 0;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) weight += std::stoull(line.substr(line.rfind(' ') + 1));
    uint64_t cpu = 0, samples = 0;
    JsonValue report = load_report(path(std::string(mode) + ".json"));
    for (const auto& t : threads_of(report)) {
      cpu += thread_cpu_samples_of(t);
      samples += thread_samples_of(t);
    }
    EXPECT_GT(cpu, 0u);
    EXPECT_LE(cpu, samples);
    EXPECT_EQ(weight, cpu);
  }
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
}

struct TopRow {
  std::string self_ms, calls;
  uint64_t samples = 0;
  std::string method;
};

// The rows `umbra report --top` printed under its column titles: self ms, calls, samples, then the method.
std::vector<TopRow> top_rows(const std::string& out) {
  std::vector<TopRow> rows;
  std::istringstream lines(out);
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "     self ms          calls    samples  method");
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    TopRow row;
    fields >> row.self_ms >> row.calls >> row.samples;
    EXPECT_FALSE(fields.fail()) << line;
    std::string rest;
    std::getline(fields, rest);
    EXPECT_EQ(rest.rfind("  ", 0), 0u) << line;
    row.method = rest.substr(std::min<size_t>(2, rest.size()));
    rows.push_back(row);
  }
  return rows;
}

// --top N: N rows, the methods with the most self time (shadow) or self samples (sampled), summed over every node of
// every thread, most first; the test sums them from the JSON itself, which keeps the runtime's frames (so does --top
// with --runtime-frames keep; by default it ranks them folded, as the text report shows them).
TEST_F(Formats, TopRanksMethodsBySelfTimeOrSamples) {
  for (const char* mode : {"shadow", "sampled"}) {
    SCOPED_TRACE(mode);
    const bool shadow = std::string(mode) == "shadow";
    JsonValue report = load_report(path(std::string(mode) + ".json"));
    std::map<std::string, uint64_t> key, calls, samples;
    for_each_node(report, [&](const JsonValue& n) {
      const JsonValue* self_ns = n.find("self_ns");
      uint64_t self_time = self_ns && self_ns->is_number() ? self_ns->as_uint() : 0;
      key[name_of(n)] += shadow ? self_time : n.find("self_samples")->as_uint();
      calls[name_of(n)] += calls_of(n);
      samples[name_of(n)] += n.find("self_samples")->as_uint();
    });
    std::vector<uint64_t> ranked;
    for (const auto& [name, k] : key) ranked.push_back(k);
    std::sort(ranked.rbegin(), ranked.rend());
    ASSERT_GT(ranked.size(), 10u);

    constexpr size_t kTop = 7;
    ProcessResult top = run_process({launcher_path(), "report", path(std::string(mode) + ".json"), "--top",
                                     std::to_string(kTop), "--runtime-frames", "keep"});
    ASSERT_EQ(top.exit_code, 0) << top.err;
    std::vector<TopRow> rows = top_rows(top.out);
    ASSERT_EQ(rows.size(), kTop) << top.out;
    for (size_t i = 0; i < rows.size(); ++i) {
      const TopRow& row = rows[i];
      ASSERT_EQ(key.count(row.method), 1u) << row.method;
      // Methods of equal weight may come in either order; the weights may not.
      EXPECT_EQ(key[row.method], ranked[i]) << "row " << i << ": " << row.method << "\n" << top.out;
      EXPECT_EQ(row.samples, samples[row.method]) << row.method;
      if (shadow) {
        char ms[32];
        std::snprintf(ms, sizeof ms, "%.3f", double(key[row.method]) / 1e6);
        EXPECT_EQ(row.self_ms, ms) << row.method;
        EXPECT_EQ(row.calls, std::to_string(calls[row.method])) << row.method;
      } else {
        EXPECT_EQ(row.calls, "-") << row.method;
      }
    }

    // More rows asked than there are methods: every method, once.
    ProcessResult all = run_process({launcher_path(), "report", path(std::string(mode) + ".json"), "--top", "1000000",
                                     "--runtime-frames", "keep"});
    ASSERT_EQ(all.exit_code, 0) << all.err;
    EXPECT_EQ(top_rows(all.out).size(), key.size());
    ProcessResult folded = run_process({launcher_path(), "report", path(std::string(mode) + ".json"), "--top", "1000000"});
    ASSERT_EQ(folded.exit_code, 0) << folded.err;
    for (const TopRow& row : top_rows(folded.out))
      EXPECT_NE(row.method.rfind("libcoreclr.so+0x", 0), 0u) << "not folded: " << row.method;
  }
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
               {"other.json", "not \"umbra-report/4\", \"umbra-report/3\", \"umbra-report/2\" or \"umbra-report/1\""},
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
