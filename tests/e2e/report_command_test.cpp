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

// umbra-report/4 nodes each of which claims every node after it as its children (each is in fact the only child of
// the one before): 20,000 of them, 190 KB. The reader reserved room for each claim as it read it, checked against
// the nodes that follow alone: 24 GB of address space in all (for 120,000 such nodes, 1.2 MB, 576 MB resident).
std::string claims_on_every_following_node(size_t nodes) {
  std::string text = R"({"schema":"umbra-report/4","mode":"shadow","node_fields":["frame","children","calls",)"
                     R"("samples","self_samples","total_ns","self_ns","tail_entries","cpu_samples",)"
                     R"("self_cpu_samples"],"frames":[["f","m","managed"]],"threads":[{"os_tid":1,"nodes":[)";
  for (size_t i = 0; i < nodes; ++i) text += (i ? ",[0," : "[0,") + std::to_string(nodes - 1 - i) + "]";
  return text + "]}]}";
}

// A report whose reading takes some 40 times its size: 3 million empty arrays side by side (9 MB of text, over
// 300 MB as a document tree), in a member no reader reads.
std::string wide_document() {
  std::string text = R"({"schema":"umbra-report/1","mode":"shadow","threads":[],"extra":[)";
  text.reserve(text.size() + 3 * 3000000 + 2);
  for (int i = 0; i < 3000000; ++i) text += i ? ",[]" : "[]";
  return text + "]}";
}

// `umbra report` under `ulimit -v` (KiB): it refuses, or fails, with one line and status 2, never a crash.
ProcessResult report_under_ulimit(uint64_t kib, const std::string& input) {
  return run_process({"sh", "-c", "ulimit -v " + std::to_string(kib) + " && exec \"$0\" report \"$1\" --format text",
                      launcher_path(), input});
}

bool one_line(const std::string& err) { return !err.empty() && err.find('\n') == err.size() - 1; }

// Under 1 GiB of address space (the 512 MiB stack for deep trees included), where those claims ran out of memory
// and aborted: the second claim is refused where it is made.
TEST_F(ReportCommand, ChildrenClaimedOfEveryFollowingNodeAreRefusedInLinearMemory) {
  std::ofstream(path("claims.json")) << claims_on_every_following_node(20000);
  ProcessResult r = report_under_ulimit(1 << 20, path("claims.json"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err, "umbra report: " + path("claims.json") +
                       ": threads[0].nodes[1].children: more than the nodes that follow less the 19998 still owed to "
                       "the nodes it is in\n");
}

// Past the cap, one line naming the file, the cap and what was exceeded, and status 2: the memory the reading
// needed, or the size of the file itself.
TEST_F(ReportCommand, AReportThatNeedsMoreMemoryThanTheCapIsRefusedInOneLine) {
  std::ofstream(path("wide.json")) << wide_document();
  ProcessResult needs = run_process({launcher_path(), "report", path("wide.json"), "--max-memory-mb", "64"});
  EXPECT_EQ(needs.exit_code, 2) << needs.err;
  EXPECT_EQ(needs.err, "umbra report: " + path("wide.json") +
                           ": out of memory reading it: it needs more than the 64 MiB cap (--max-memory-mb N raises "
                           "it)\n");
  ProcessResult large = run_process({launcher_path(), "report", path("wide.json"), "--max-memory-mb", "8"});
  EXPECT_EQ(large.exit_code, 2) << large.err;
  EXPECT_EQ(large.err, "umbra report: " + path("wide.json") +
                           ": not read: its 9 MiB of text are more than the 8 MiB cap (--max-memory-mb N raises it)\n");
  // Under the default cap, half the machine's memory, the same file is read: the cap is what refused it.
  ProcessResult read = run_process({launcher_path(), "report", path("wide.json"), "-o", path("wide")});
  EXPECT_EQ(read.exit_code, 0) << read.err;
}

// An address-space limit the command was started with is kept, not raised to the cap, and is what the line names
// when the command runs into it, wherever that is: at each of these limits the document is read, or refused in one
// line and status 2. Before, a std::bad_alloc no one caught aborted, and at 750 and 850 to 950 MiB so did destroying
// the half-read document, which asked for memory again.
TEST_F(ReportCommand, RunningOutOfAnInheritedMemoryLimitIsOneLineNotACrash) {
  std::ofstream(path("wide.json")) << wide_document();
  size_t refused = 0;
  for (uint64_t mib = 700; mib <= 950; mib += 50) {
    ProcessResult r = report_under_ulimit(mib << 10, path("wide.json"));
    if (r.exit_code == 0) continue;
    ++refused;
    EXPECT_EQ(r.exit_code, 2) << mib << " MiB: " << r.err;
    EXPECT_TRUE(one_line(r.err)) << mib << " MiB: " << r.err;
    EXPECT_EQ(r.err.rfind("umbra report: " + path("wide.json") + ": out of memory ", 0), 0u)
        << mib << " MiB: " << r.err;
    const std::string limit = ": it needs more than the address-space limit of " + std::to_string(mib) +
                              " MiB it was started with (ulimit -v)\n";
    EXPECT_NE(r.err.find(limit), std::string::npos) << mib << " MiB: " << r.err;
  }
  EXPECT_GT(refused, 0u) << "read at every limit: none tests the line";
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
