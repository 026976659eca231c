// The HTML report in a real browser (headless Chromium, opened from disk, with no network): the flame graph is
// drawn, a search highlights exactly the frames of the method searched for, and a 50,000-node report opens.
// A screenshot is left in the scratch directory (html/page.png) for people to look at.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "e2e_env.h"
#include "process.h"
#include "report_query.h"

namespace umbra::testing {
namespace {

std::vector<std::string> chromium(const std::string& profile_dir) {
  return {UMBRA_TEST_CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
          "--disable-background-networking", "--disable-component-update", "--disable-sync",
          "--user-data-dir=" + profile_dir, "--hide-scrollbars", "--window-size=1400,900",
          "--virtual-time-budget=10000"};
}

// The page's body attributes after it has run: data-drawn, data-highlighted, data-matches, data-ready.
std::map<std::string, std::string> body_data(const std::string& dom) {
  std::map<std::string, std::string> out;
  std::smatch body;
  if (!std::regex_search(dom, body, std::regex("<body([^>]*)>"))) return out;
  std::string attrs = body[1];
  std::regex attr("data-([a-z]+)=\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(attrs.begin(), attrs.end(), attr); it != std::sregex_iterator(); ++it)
    out[(*it)[1]] = (*it)[2];
  return out;
}

// Opens `url` in headless Chromium and returns the page's body data once it has run.
std::map<std::string, std::string> render(const std::string& dir, const std::string& url) {
  auto argv = chromium(dir + "/chromium");
  argv.push_back("--dump-dom");
  argv.push_back(url);
  ProcessResult dom = run_process(argv, {}, 120);
  auto data = body_data(dom.out);
  EXPECT_EQ(data["ready"], "yes") << dom.err.substr(0, 2000);
  return data;
}

TEST(Html, FlameGraphSearchAndScreenshotInABrowser) {
  std::string dir = scratch_dir("html");
  // Exact call times: Fib's frames (microseconds in all) are wide enough to draw only when timed per call.
  ProcessResult r = run_process(with_app(
      {launcher_path(), "run", "--hooks-for", "all", "--exact-times", "--format", "json,html", "-o", dir + "/r", "--"},
      "KnownCounts"));
  ASSERT_EQ(r.exit_code, 3) << r.err;
  std::string page = read_file(dir + "/r.html");
  // Self-contained: nothing to fetch.
  EXPECT_EQ(page.find("src="), std::string::npos);
  EXPECT_EQ(page.find("href="), std::string::npos);
  EXPECT_EQ(page.find("@import"), std::string::npos);

  // As many Fib frames in the page as nodes named Fib in the JSON (one per depth of the recursion).
  JsonValue report = load_report(dir + "/r.json");
  uint64_t fib_nodes = 0;
  for_each_node(report, [&](const JsonValue& n) { fib_nodes += name_of(n) == "KnownCounts.Program.Fib"; });
  ASSERT_EQ(fib_nodes, 20u);

  auto data = render(dir, "file://" + dir + "/r.html#thread=&search=KnownCounts.Program.Fib");
  ASSERT_EQ(data["ready"], "yes");
  EXPECT_GT(std::stoul(data["drawn"]), 100u);
  EXPECT_EQ(std::stoul(data["matches"]), fib_nodes);
  // Fib's 0.4 ms can be under the half pixel a frame needs among the program's whole time (1.7 s of it in thread
  // starts on a busy machine): zoomed into its caller, its frames are drawn, highlighted.
  auto zoomed = render(dir, "file://" + dir +
                                "/r.html#search=KnownCounts.Program.Fib&zoom=KnownCounts.Program.RunRecursion");
  ASSERT_EQ(zoomed["zoomed"], "yes");
  EXPECT_GT(std::stoul(zoomed["highlighted"]), 0u);

  auto argv = chromium(dir + "/chromium");
  argv.push_back("--screenshot=" + dir + "/page.png");
  argv.push_back("file://" + dir + "/r.html#search=Fib");
  run_process(argv, {}, 120);
  ASSERT_TRUE(std::filesystem::exists(dir + "/page.png"));
  EXPECT_GT(std::filesystem::file_size(dir + "/page.png"), 10000u);
}

// A hot thread and a waiting one: the page weighs by wall time or, toggled, by CPU (the totals it draws are the
// report's samples and CPU samples), lists each thread with its share of the CPU, and hides the idle ones.
TEST(Html, WallOrCpuViewAndIdleThreadsHidden) {
  std::string dir = scratch_dir("html_cpu");
  ProcessResult r = run_process(with_app({launcher_path(), "run", "--mode", "sampled", "--interval-ms", "2", "--format",
                                          "json,html", "-o", dir + "/r", "--"},
                                         "Workloads", {"cpuwait", "1000"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  JsonValue report = load_report(dir + "/r.json");
  uint64_t samples = 0, cpu = 0;
  for (const auto& t : threads_of(report)) {
    samples += thread_samples_of(t);
    cpu += thread_cpu_samples_of(t);
  }
  ASSERT_GT(cpu, 0u);
  ASSERT_LT(cpu, samples);
  const size_t threads = threads_of(report).size();

  auto wall = render(dir, "file://" + dir + "/r.html");
  EXPECT_EQ(wall["view"], "wall");
  EXPECT_EQ(wall["weight"], std::to_string(samples));
  EXPECT_EQ(wall["threads"], std::to_string(threads));
  auto by_cpu = render(dir, "file://" + dir + "/r.html#view=cpu");
  EXPECT_EQ(by_cpu["view"], "cpu");
  EXPECT_EQ(by_cpu["weight"], std::to_string(cpu));

  auto argv = chromium(dir + "/chromium");
  argv.push_back("--dump-dom");
  argv.push_back("file://" + dir + "/r.html");
  std::string dom = run_process(argv, {}, 120).out;
  EXPECT_TRUE(std::regex_search(dom, std::regex("<option value=\"[0-9]+\">waiter \u2014 [0-9]\\.[0-9]% of CPU")))
      << dom.substr(0, 3000);
  argv.back() += "#idle=hide";
  std::string hidden = run_process(argv, {}, 120).out;
  EXPECT_EQ(body_data(hidden)["ready"], "yes");
  EXPECT_LT(std::stoul(body_data(hidden)["threads"]), threads);
  EXPECT_EQ(hidden.find(">waiter \u2014"), std::string::npos) << "the waiter is idle";
}

TEST(Html, AFiftyThousandNodeReportOpens) {
  // A synthetic saved report: 50,000 nodes, 250 wide and 200 deep, converted by `umbra report`.
  std::string dir = scratch_dir("html_big");
  std::ofstream json(dir + "/big.json");
  json << R"({"schema":"umbra-report/1","mode":"shadow","pid":1,"runtime":"test","duration_ns":1000000000,)"
       << R"("threads":[{"os_tid":1,"managed_id":null,"name":"main","roots":[)";
  for (int chain = 0; chain < 250; ++chain) {
    if (chain) json << ',';
    for (int d = 0; d < 200; ++d) {
      uint64_t total = uint64_t(200 - d) * 1000 + chain;
      json << R"({"name":"App.Chain)" << chain << ".Level" << d << R"(","kind":"managed","module":"App.dll",)"
           << R"("calls":1,"samples":0,"self_samples":0,"total_ns":)" << total << R"(,"self_ns":1000,)"
           << R"("tail_entries":0,"children":[)";
    }
    for (int d = 0; d < 200; ++d) json << "]}";
  }
  json << "]}],\"stats\":{}}";
  json.close();
  ProcessResult convert = run_process({launcher_path(), "report", dir + "/big.json", "--format", "html", "-o",
                                       dir + "/big"});
  ASSERT_EQ(convert.exit_code, 0) << convert.err;
  auto data = render(dir, "file://" + dir + "/big.html#search=Chain7.Level199");
  ASSERT_EQ(data["ready"], "yes");
  EXPECT_EQ(data["matches"], "1");
  EXPECT_GT(std::stoul(data["drawn"]), 1000u);
}

}  // namespace
}  // namespace umbra::testing
