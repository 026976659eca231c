// pprof files on real profiles, read by pprof itself (`go tool pprof`, Debian's Go): totals that agree with umbra's
// own JSON report, exact call counts, a known call path in -traces, native frames under their module's mapping, and
// `umbra report` converting the JSON to the same file. Go must be there (tools/test.sh installs it): without it these
// tests fail, they do not skip.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "e2e_env.h"
#include "go_pprof.h"
#include "process.h"
#include "report_query.h"

namespace umbra::testing {
namespace {

const std::string P = "KnownCounts.Program.";

class Pprof : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(scratch_dir("pprof"));
    // Exact call times, so that short methods have times of their own; 1 ms ticks, so that many nodes have samples.
    ProcessResult shadow = run_process(with_app({launcher_path(), "run", "--interval-ms", "1", "--exact-times",
                                                 "--format", "json,pprof", "-o", path("shadow"), "--"},
                                                "KnownCounts"));
    ASSERT_EQ(shadow.exit_code, 3) << shadow.err;
    shadow_err_ = new std::string(shadow.err);
    // The formats from the environment, as a program started without the launcher would take them.
    ProcessResult sampled =
        run_process(with_app({launcher_path(), "run", "--mode", "sampled", "-o", path("sampled"), "--"}, "NativeMix",
                             {"spin"}),
                    {{"UMBRA_TEST_NATIVE_LIB", native_test_library()}, {"UMBRA_FORMATS", "json,pprof"}});
    ASSERT_EQ(sampled.exit_code, 0) << sampled.err;
  }
  static void TearDownTestSuite() {
    delete dir_;
    delete shadow_err_;
  }
  static std::string path(const std::string& name) { return *dir_ + "/" + name; }

  // `go tool pprof ARGS` (go_pprof.h), its caches in the test's scratch directory.
  static ProcessResult pprof(const std::vector<std::string>& args) {
    ProcessResult r = run_go_pprof(args, *dir_);
    EXPECT_EQ(r.exit_code, 0) << "go tool pprof failed (is golang-go installed? tools/test.sh installs it)\n"
                              << r.out << r.err;
    return r;
  }
  static std::string* dir_;
  static std::string* shadow_err_;  // the launcher's messages
};
std::string* Pprof::dir_;
std::string* Pprof::shadow_err_;

// `go tool pprof -raw`: the profile as pprof decoded it. Returns the sample types' names and each type's values
// summed over every sample.
struct RawTotals {
  std::vector<std::string> types;
  std::vector<uint64_t> sums;
  size_t samples = 0;
  std::string mappings;  // the lines after "Mappings"
};

RawTotals raw_totals(const std::string& raw) {
  RawTotals totals;
  std::istringstream lines(raw);
  std::string line;
  enum { kBefore, kTypes, kSamples, kLocations, kMappings } part = kBefore;
  while (std::getline(lines, line)) {
    if (line == "Samples:") part = kTypes;
    else if (line == "Locations") part = kLocations;
    else if (line == "Mappings") part = kMappings;
    else if (part == kTypes) {
      std::istringstream types(line);
      for (std::string t; types >> t;) totals.types.push_back(t);
      totals.sums.assign(totals.types.size(), 0);
      part = kSamples;
    } else if (part == kSamples) {
      size_t first = line.find_first_not_of(' ');
      if (first == std::string::npos || !std::isdigit(static_cast<unsigned char>(line[first]))) continue;  // a label
      std::istringstream values(line.substr(0, line.find(':')));
      for (uint64_t& sum : totals.sums) {
        uint64_t v = 0;
        values >> v;
        EXPECT_FALSE(values.fail()) << line;
        sum += v;
      }
      ++totals.samples;
    } else if (part == kMappings) {
      totals.mappings += line + "\n";
    }
  }
  return totals;
}

// The flat value of `function` in `go tool pprof -top` (every node shown), or -1 if it is not listed.
int64_t top_flat(const std::string& top, const std::string& function) {
  std::istringstream lines(top);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string flat, flat_percent, sum_percent, cum, cum_percent, name;
    if (!(fields >> flat >> flat_percent >> sum_percent >> cum >> cum_percent >> name) || name != function) continue;
    return std::stoll(flat);
  }
  return -1;
}

uint64_t json_sum(const JsonValue& report, const char* field) {
  uint64_t sum = 0;
  for_each_node(report, [&](const JsonValue& n) {
    const JsonValue* v = n.find(field);
    if (v && v->is_number()) sum += v->as_uint();
  });
  return sum;
}

uint64_t json_self_samples_of(const JsonValue& report, const std::string& name) {
  uint64_t sum = 0;
  for_each_node(report, [&](const JsonValue& n) {
    if (name_of(n) == name) sum += n.find("self_samples")->as_uint();
  });
  return sum;
}

TEST_F(Pprof, ShadowTotalsAgreeWithTheJsonReport) {
  JsonValue report = load_report(path("shadow.json"));
  RawTotals raw = raw_totals(pprof({"-raw", path("shadow.pb.gz")}).out);
  ASSERT_EQ(raw.types, (std::vector<std::string>{"samples/count[dflt]", "cpu_samples/count", "calls/count",
                                                 "time/nanoseconds"}));
  uint64_t samples = 0;
  for (const auto& t : threads_of(report))
    for (const auto& r : roots_of(t)) samples += samples_of(r);
  EXPECT_GT(samples, 100u);
  EXPECT_EQ(raw.sums[0], samples);
  EXPECT_EQ(raw.sums[0], json_sum(report, "self_samples"));
  EXPECT_GT(raw.sums[1], 0u);
  EXPECT_EQ(raw.sums[1], json_sum(report, "self_cpu_samples"));
  EXPECT_EQ(raw.sums[2], json_sum(report, "calls"));
  EXPECT_EQ(raw.sums[3], json_sum(report, "self_ns"));
}

// pprof's own aggregation (-top sums each function's samples over threads and paths): the exact call counts.
TEST_F(Pprof, TopGivesExactCallCounts) {
  std::string top = pprof({"-top", "-sample_index=calls", "-nodefraction=0", "-nodecount=1000000",
                           path("shadow.pb.gz")}).out;
  EXPECT_EQ(top_flat(top, P + "Work"), 1000) << top;  // 100 + 200 + 300 + 400 on the four workers
  EXPECT_EQ(top_flat(top, P + "Leaf"), 1000) << top;
  EXPECT_EQ(top_flat(top, P + "Fib"), 21891) << top;  // Fib(20)'s calls
  EXPECT_EQ(top_flat(top, P + "ShortLivedBody"), 500) << top;
  // pprof names the profile after the program.
  EXPECT_EQ(top.rfind("File: KnownCounts.dll\n", 0), 0u) << top.substr(0, 200);
}

// -traces: every sample's stack, leaf first, with its thread's labels. Worker-2's 200 calls of Work sit under
// WorkerBody, on its own thread.
TEST_F(Pprof, TracesShowAKnownCallPathOnItsThread) {
  std::string traces = pprof({"-traces", "-sample_index=calls", path("shadow.pb.gz")}).out;
  std::istringstream blocks(traces);
  std::string line, block;
  bool found = false;
  auto check = [&] {
    std::istringstream in(block);
    std::vector<std::string> frames;
    std::string thread, value;
    for (std::string l; std::getline(in, l);) {
      std::istringstream fields(l);
      std::string first;
      fields >> first;
      if (first == "thread:") fields >> thread;
      else if (!first.empty() && std::isdigit(static_cast<unsigned char>(first[0]))) {
        value = first;
        std::string frame;
        fields >> frame;
        frames.push_back(frame);
      } else if (!first.empty() && first[0] != '-' && first.find(':') == std::string::npos) {
        frames.push_back(first);
      }
    }
    if (thread == "Worker-2" && frames.size() >= 2 && frames[0] == P + "Work" && frames[1] == P + "WorkerBody") {
      EXPECT_EQ(value, "200") << block;
      found = true;
    }
  };
  while (std::getline(blocks, line)) {
    if (line.rfind("-----------+", 0) == 0) {
      check();
      block.clear();
    } else {
      block += line + "\n";
    }
  }
  check();
  EXPECT_TRUE(found) << traces.substr(0, 4000);
}

TEST_F(Pprof, SampledTotalsAgreeAndNativeFramesLieUnderTheirModule) {
  JsonValue report = load_report(path("sampled.json"));
  RawTotals raw = raw_totals(pprof({"-raw", path("sampled.pb.gz")}).out);
  ASSERT_EQ(raw.types, (std::vector<std::string>{"samples/count[dflt]", "cpu_samples/count"}));
  EXPECT_EQ(raw.sums[0], json_sum(report, "self_samples"));
  EXPECT_EQ(raw.sums[1], json_sum(report, "self_cpu_samples"));
  EXPECT_NE(raw.mappings.find("libumbra_testnative.so"), std::string::npos) << raw.mappings;

  std::string top = pprof({"-top", "-nodefraction=0", "-nodecount=1000000", path("sampled.pb.gz")}).out;
  uint64_t spin = json_self_samples_of(report, "umbra_native_spin");
  EXPECT_GT(spin, 50u);
  EXPECT_EQ(top_flat(top, "umbra_native_spin"), int64_t(spin)) << top;
  // The CPU view: the spin runs, so its samples on a CPU are most of its samples, and pprof agrees with the report.
  std::string cpu_top = pprof({"-top", "-nodefraction=0", "-nodecount=1000000", "-sample_index=cpu_samples",
                               path("sampled.pb.gz")}).out;
  uint64_t spin_cpu = 0;
  for_each_node(report, [&](const JsonValue& n) {
    if (name_of(n) == "umbra_native_spin") spin_cpu += n.find("self_cpu_samples")->as_uint();
  });
  EXPECT_GT(spin_cpu, spin / 2);
  EXPECT_EQ(top_flat(cpu_top, "umbra_native_spin"), int64_t(spin_cpu)) << cpu_top;
  // The period is the sampling interval (10 ms by default), in nanoseconds.
  std::string raw_text = pprof({"-raw", path("sampled.pb.gz")}).out;
  EXPECT_NE(raw_text.find("PeriodType: wall nanoseconds\nPeriod: 10000000\n"), std::string::npos) << raw_text;
}

// The launcher's closing line lists the reports it found beside the prefix.
TEST_F(Pprof, TheLauncherListsTheFile) {
  size_t listing = shadow_err_->find("umbra: report of pid ");
  ASSERT_NE(listing, std::string::npos) << *shadow_err_;
  std::string line = shadow_err_->substr(listing, shadow_err_->find('\n', listing) - listing);
  EXPECT_NE(line.find(path("shadow.pb.gz")), std::string::npos) << line;
}

// `umbra report` converts a saved JSON report to pprof: the same file, byte for byte, as the profiler wrote.
TEST_F(Pprof, ReportConvertsTheJsonToTheSameFile) {
  for (const char* mode : {"shadow", "sampled"}) {
    SCOPED_TRACE(mode);
    ProcessResult r = run_process({launcher_path(), "report", path(std::string(mode) + ".json"), "--format", "pprof",
                                   "-o", path(std::string(mode) + "-converted")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("wrote " + path(std::string(mode) + "-converted.pb.gz")), std::string::npos) << r.err;
    std::string converted = read_file(path(std::string(mode) + "-converted.pb.gz"));
    ASSERT_FALSE(converted.empty());
    EXPECT_TRUE(converted == read_file(path(std::string(mode) + ".pb.gz")));
  }
}

}  // namespace
}  // namespace umbra::testing
