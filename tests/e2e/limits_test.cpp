// The limits on what a thread records: --max-depth frames on its shadow stack, and its node space. Where a tree is
// cut a marker node counts the calls not recorded. (--log-level info rides along in the first run.)
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>

#include "e2e_env.h"
#include "process.h"
#include "report_query.h"

namespace umbra::testing {
namespace {

// Deep recurses 100 calls deep and calls Counted 42 times at the bottom. With 16 frames a thread, Main and 15 Deep
// frames are recorded; every call below is counted on the marker where the tree was cut.
TEST(Limits, MaxDepthCutsTheTreeAndLogLevelInfoSaysMore) {
  std::string dir = scratch_dir("launcher_max_depth");
  ProcessResult r = run_process(with_app(
      {launcher_path(), "run", "--hooks-for", "all", "--max-depth", "16", "--log-level", "info", "-o", dir + "/r", "--"},
      "ExitPaths", {"deep"}));
  ASSERT_EQ(r.exit_code, 5) << r.err;
  EXPECT_EQ(occurrences(r.err, "umbra: shadow mode: " + expected_hook_family() + " hooks"), 1u) << r.err;
  JsonValue report = load_report(dir + "/r.json");
  const JsonValue* main = thread_with_root(report, "ExitPaths.Program.Main");
  ASSERT_NE(main, nullptr);
  const std::string marker = "[deeper calls not recorded: shadow stack full]";
  const JsonValue* cut = nullptr;
  size_t cut_depth = 0;
  // Framework code reaches 16 frames too, and is cut there as well: the cut wanted is the one under Deep.
  for_each_path(*main, [&](const std::vector<const JsonValue*>& path) {
    if (name_of(*path.back()) != marker || name_of(*path[path.size() - 2]) != "ExitPaths.Program.Deep") return;
    EXPECT_EQ(cut, nullptr) << "one cut under Deep";
    cut = path.back();
    cut_depth = path.size() - 1;
  });
  ASSERT_NE(cut, nullptr) << read_file(dir + "/r.txt");
  EXPECT_EQ(cut->find("kind")->as_string(), "marker");
  EXPECT_EQ(cut_depth, 16u);
  const uint64_t recorded = total_calls(roots_of(*main), "ExitPaths.Program.Deep");
  EXPECT_EQ(recorded, 15u);
  EXPECT_EQ(recorded + calls_of(*cut), 100u + 42u);
  EXPECT_EQ(total_calls(roots_of(*main), "ExitPaths.Program.Counted"), 42u) << "Main's own calls, above the cut";
  EXPECT_GE(report.find("stats")->find("drops")->find("stack_overflow")->as_uint(), calls_of(*cut));
  EXPECT_NE(read_file(dir + "/r.txt").find(marker), std::string::npos);
}

// Left(22) makes 2^23 - 1 calls, each on a path of its own: more nodes than --max-tree-mb 64 holds (the default,
// 4096, holds them all, so the option is what cuts the tree here). Every call
// is counted, on its node or, once the space is gone, on a marker at the thread's root, shown even at 0.0%. Only
// the text report is written: the JSON of some 4 million nodes takes seconds to write and to read.
TEST(Limits, CallsBeyondTheNodeLimitAreCountedOnOneMarker) {
  std::string dir = scratch_dir("limits_node_limit");
  ProcessResult r = run_process(
      with_app({launcher_path(), "run", "--max-tree-mb", "64", "--format", "text", "-o", dir + "/r", "--"}, "ExitPaths",
               {"node-limit"}));
  ASSERT_EQ(r.exit_code, 5) << r.err;
  const std::string text = read_file(dir + "/r.txt");
  auto number = [](std::string digits) {
    digits.erase(std::remove(digits.begin(), digits.end(), ','), digits.end());
    return std::stoull(digits);
  };
  std::smatch dropped, marker, thread;
  ASSERT_TRUE(std::regex_search(text, dropped, std::regex("not captured: .*tree_full=([0-9,]+)"))) << text.substr(0, 400);
  ASSERT_TRUE(std::regex_search(text, marker, std::regex("\n +([0-9,]+) .*%  \\[calls beyond the node limit\\]\n")));
  const uint64_t beyond = number(marker[1]);
  // The memory is shared: threads that ran on after it was gone have markers of their own.
  const std::regex any_marker("\n +([0-9,]+) .*%  \\[calls beyond the node limit\\]\n");
  uint64_t all_markers = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), any_marker); it != std::sregex_iterator(); ++it)
    all_markers += number((*it)[1]);
  EXPECT_EQ(all_markers, number(dropped[1]));
  constexpr uint64_t kCalls = (uint64_t(1) << 23) - 1;
  EXPECT_GT(beyond, kCalls / 2) << "the first marker is the recursing thread's";
  EXPECT_LT(beyond, kCalls);
  // The marker's thread: every one of its Left and Right calls is in its count, beside a few thousand others.
  const std::string before = text.substr(0, size_t(marker.position(0)));
  const std::string block = before.substr(before.rfind("=== thread"));
  ASSERT_TRUE(std::regex_search(block, thread,
                                std::regex("os tid [0-9]+  ([0-9,]+) calls")));
  EXPECT_GE(number(thread[1]), kCalls);
  EXPECT_LT(number(thread[1]), kCalls + 100000);
}

}  // namespace
}  // namespace umbra::testing
