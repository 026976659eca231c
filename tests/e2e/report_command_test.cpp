// `umbra report` on a saved report whose every number the test chose: where its files go, which thread it keeps,
// how --min-percent folds the text report, what --collapsed-weight weighs, and the HTML page's #thread= link (in
// headless Chromium).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

#include "e2e_env.h"
#include "process.h"
#include "report_query.h"

namespace umbra::testing {
namespace {

std::string node(const std::string& name, const char* kind, uint64_t calls, uint64_t total_ns, uint64_t self_ns,
                 const std::string& children = "") {
  return R"({"name":")" + name + R"(","kind":")" + kind + R"(","module":"m.dll","calls":)" + std::to_string(calls) +
         R"(,"samples":0,"self_samples":0,"total_ns":)" + std::to_string(total_ns) + R"(,"self_ns":)" +
         std::to_string(self_ns) + R"(,"tail_entries":0,"children":[)" + children + "]}";
}

// Thread Alpha (OS id 101): Main 1 ms = 0.1 ms self + Hot 0.9 ms (Leaf 0.3 ms of it) + a cut marker and Tiny,
// both 0 ms. Thread Beta (OS id 202): Run 0.5 ms.
const std::string kMarker = "[deeper calls not recorded: shadow stack full]";
std::string saved_report() {
  std::string alpha = node("A.Main", "managed", 1, 1000000, 100000,
                           node("A.Hot", "managed", 3, 900000, 600000, node("A.Leaf", "managed", 7, 300000, 300000)) +
                               "," + node(kMarker, "marker", 5, 0, 0) + "," + node("A.Tiny", "managed", 2, 0, 0));
  std::string beta = node("B.Run", "managed", 1, 500000, 500000);
  return R"({"schema":"umbra-report/1","mode":"shadow","pid":4242,"runtime":"10.0.12","duration_ns":2000000,)"
         R"("threads":[{"os_tid":101,"managed_id":1,"name":"Alpha","exited":true,"managed_samples":null,)"
         R"("native_samples":null,"roots":[)" + alpha + R"(]},)"
         R"({"os_tid":202,"managed_id":2,"name":"Beta","exited":true,"managed_samples":null,"native_samples":null,)"
         R"("roots":[)" + beta + R"(]}],"stats":{}})";
}

class ReportCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = scratch_dir("report_command");
    std::ofstream(path("saved.json")) << saved_report();
  }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }
  ProcessResult report(std::vector<std::string> args) const {
    args.insert(args.begin(), {launcher_path(), "report", path("saved.json")});
    return run_process(args);
  }
  std::string dir_;
};

TEST_F(ReportCommand, WithoutAnOutputFilesGoBesideTheInputAsConverted) {
  ProcessResult r = report({"--format", "text,json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(read_file(path("saved.converted.txt")).find("A.Hot"), std::string::npos);
  EXPECT_NE(thread_named(load_report(path("saved.converted.json")), "Beta"), nullptr);
}

TEST_F(ReportCommand, ThreadKeepsOneThreadByItsOsId) {
  for (const auto& [tid, kept, root] : {std::tuple{"202", "Beta", "B.Run"}, std::tuple{"101", "Alpha", "A.Main"}}) {
    ProcessResult r = report({"--thread", tid, "--format", "json", "-o", path(std::string("tid") + tid)});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    JsonValue only = load_report(path(std::string("tid") + tid + ".json"));
    ASSERT_EQ(threads_of(only).size(), 1u) << tid;
    EXPECT_NE(thread_named(only, kept), nullptr) << tid;
    EXPECT_NE(thread_with_root(only, root), nullptr) << tid;
  }
}

// Leaf is 30% of its thread: folded at 50, shown at 20. The marker, at 0%, is a cut in the tree: never folded.
TEST_F(ReportCommand, MinPercentFoldsTheTextReportButNeverAMarker) {
  ASSERT_EQ(report({"--format", "text", "--min-percent", "50", "-o", path("p50")}).exit_code, 0);
  ASSERT_EQ(report({"--format", "text", "--min-percent", "20", "-o", path("p20")}).exit_code, 0);
  std::string p50 = read_file(path("p50.txt")), p20 = read_file(path("p20.txt"));
  EXPECT_NE(p50.find("A.Hot"), std::string::npos) << p50;
  EXPECT_EQ(p50.find("A.Leaf"), std::string::npos) << p50;
  EXPECT_EQ(p50.find("A.Tiny"), std::string::npos) << p50;
  EXPECT_NE(p50.find("... 1 more under 50.0% each"), std::string::npos) << p50;
  EXPECT_NE(p50.find(kMarker), std::string::npos) << p50;
  EXPECT_NE(p20.find("A.Leaf"), std::string::npos) << p20;
  EXPECT_NE(p20.find(kMarker), std::string::npos) << p20;
}

TEST_F(ReportCommand, CollapsedWeightSelfNsWeighsEachStackByItsExactSelfTime) {
  ProcessResult r = report({"--format", "collapsed", "--collapsed-weight", "self_ns", "-o", path("self")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string collapsed = "\n" + read_file(path("self.collapsed"));
  for (const char* line : {"A.Main 100000\n", "A.Main;A.Hot 600000\n", "A.Main;A.Hot;A.Leaf 300000\n", "B.Run 500000\n"})
    EXPECT_NE(collapsed.find(std::string("\n") + line), std::string::npos) << line << "in:" << collapsed;
}

// The page's body data (data-drawn, data-highlighted, data-ready) once it has run at `url`.
std::map<std::string, std::string> render(const std::string& dir, const std::string& url) {
  ProcessResult dom = run_process({UMBRA_TEST_CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                                   "--no-first-run", "--disable-background-networking", "--disable-component-update",
                                   "--disable-sync", "--user-data-dir=" + dir + "/chromium", "--window-size=1400,900",
                                   "--virtual-time-budget=10000", "--dump-dom", url},
                                  {}, 120);
  std::map<std::string, std::string> out;
  std::smatch body;
  if (!std::regex_search(dom.out, body, std::regex("<body([^>]*)>"))) return out;
  std::string attrs = body[1];
  std::regex attr("data-([a-z]+)=\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(attrs.begin(), attrs.end(), attr); it != std::sregex_iterator(); ++it)
    out[(*it)[1]] = (*it)[2];
  return out;
}

// A.Leaf is drawn in Alpha's flame graph and in the all-threads one, not in Beta's: a search for it highlights a
// frame unless the link selected Beta.
TEST_F(ReportCommand, HtmlLinkSelectsTheThreadItNames) {
  ASSERT_EQ(report({"--format", "html", "-o", path("page")}).exit_code, 0);
  const std::string page = "file://" + path("page.html");
  auto alpha = render(dir_, page + "#thread=Alpha&search=A.Leaf");
  auto beta = render(dir_, page + "#thread=Beta&search=A.Leaf");
  ASSERT_EQ(alpha["ready"], "yes");
  ASSERT_EQ(beta["ready"], "yes");
  EXPECT_EQ(alpha["highlighted"], "1");
  EXPECT_EQ(beta["highlighted"], "0");
  EXPECT_LT(std::stoul(beta["drawn"]), std::stoul(alpha["drawn"]));
}

}  // namespace
}  // namespace umbra::testing
