#include "report/collapsed_writer.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "hostile_names.h"
#include "report_fixture.h"
#include "util/large_stack.h"

namespace umbra {
namespace {

TEST(CollapsedWriter, OneLinePerStackWeightedAsAsked) {
  Report r = testing::known_report();
  r.threads[0].roots[0].children[0].self_samples = 7;
  r.threads[0].roots[0].self_samples = 2;
  EXPECT_EQ(report_to_collapsed(r, {}), "App.Program.Main 2\nApp.Program.Main;App.Program.Hot 7\n");
  std::string by_time = report_to_collapsed(r, {CollapsedWeight::kSelfNs, false});
  EXPECT_NE(by_time.find("App.Program.Main;App.Program.Hot 899000000\n"), std::string::npos) << by_time;
  EXPECT_NE(by_time.find("App.Program.Main;App.Program.Tiny 1000000\n"), std::string::npos);
  EXPECT_NE(by_time.find("App.Worker.Run 5000000\n"), std::string::npos);
  std::string with_threads = report_to_collapsed(r, {CollapsedWeight::kCalls, true});
  EXPECT_NE(with_threads.find("Main \"thread\";App.Program.Main;App.Program.Hot 10\n"), std::string::npos)
      << with_threads;
  EXPECT_NE(with_threads.find("tid 43;App.Worker.Run 1\n"), std::string::npos);
  // CPU time: the samples taken on a CPU; a stack with none is no line.
  r.threads[0].roots[0].children[0].self_cpu_samples = 5;
  EXPECT_EQ(report_to_collapsed(r, {CollapsedWeight::kCpuSamples, false}), "App.Program.Main;App.Program.Hot 5\n");
}

TEST(CollapsedWriter, SeparatorsInNamesCannotSplitAFrame) {
  Report r = testing::known_report();
  testing::set_name(r.threads[0].roots[0], "A;B C");
  r.threads[0].roots[0].self_samples = 1;
  EXPECT_NE(report_to_collapsed(r, {}).find("A_B C 1\n"), std::string::npos);
}

// Lines as folded-stack readers find them: speedscope's importer (JavaScript) also ends one at '\r', U+2028 and
// U+2029, and Python's splitlines at U+0085.
std::vector<std::string> reader_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::string line;
  for (size_t i = 0; i < text.size(); ++i) {
    size_t length = text[i] == '\n' || text[i] == '\r' ? 1 : 0;
    if (text.compare(i, 3, "\xe2\x80\xa8") == 0 || text.compare(i, 3, "\xe2\x80\xa9") == 0) length = 3;
    if (text.compare(i, 2, "\xc2\x85") == 0) length = 2;
    if (length == 0) {
      line += text[i];
      continue;
    }
    lines.push_back(line);
    line.clear();
    i += length - 1;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

// Readers take the count after a line's last space; flamegraph.pl also takes a number before it as a differential
// graph's first count, so no frame may end in a space and a number.
TEST(CollapsedWriter, NamesCannotForgeALineOrACount) {
  Report r = testing::known_report();
  ReportNode& main = r.threads[0].roots[0];
  testing::set_name(main, "Main\xe2\x80\xa8" "Forged 999");
  main.self_samples = 1;
  testing::set_name(main.children[0], "Ends in 999");
  main.children[0].self_samples = 2;
  testing::set_name(main.children[1], testing::kHostileName + " 1.5");
  main.children[1].self_samples = 3;
  testing::set_name(r.threads[1].roots[0], "Tab\t7");
  r.threads[1].roots[0].self_samples = 4;
  std::string out = report_to_collapsed(r, {});
  EXPECT_EQ(testing::first_unsafe(out), "");
  const std::regex count_at_end(R"((.*)\s+?(\d+(?:\.\d*)?))");  // flamegraph.pl's
  std::vector<uint64_t> counts;
  for (const std::string& line : reader_lines(out)) {
    auto space = line.rfind(' ');
    ASSERT_NE(space, std::string::npos) << line;
    counts.push_back(std::stoull(line.substr(space + 1)));
    EXPECT_FALSE(std::regex_match(line.substr(0, space), count_at_end)) << line;
  }
  EXPECT_EQ(counts, (std::vector<uint64_t>{1, 2, 3, 4})) << out;  // one line per weighted node, in order
}

TEST(CollapsedWriter, AFrameNeverEndsInASpaceAndANumber) {
  Report r = testing::known_report();
  ReportNode& root = r.threads[0].roots[0];
  root.self_samples = 1;
  auto leaf = [&](const std::string& name) {
    testing::set_name(root, name);
    std::string out = report_to_collapsed(r, {});
    return out.substr(0, out.find('\n'));
  };
  EXPECT_EQ(leaf("Retry 3"), "Retry_3 1");
  EXPECT_EQ(leaf("Retry 3 "), "Retry_3  1");  // readers that trim spaces first
  EXPECT_EQ(leaf("Version 1.2.3"), "Version_1.2.3 1");
  EXPECT_EQ(leaf("Plain 3x"), "Plain 3x 1");
  EXPECT_EQ(leaf("42"), "42 1");
  // A thread's frame is never the last of a line: its name is kept.
  r.threads[0].name = "Worker 3";
  EXPECT_EQ(report_to_collapsed(r, {CollapsedWeight::kSamples, true}).substr(0, 12), "Worker 3;42 ");
}


// Written in full, every level repeats the path above it: 8,000 levels made 64 MB of collapsed stacks.
TEST(CollapsedWriter, ADeepChainIsCutNotSquared) {
  run_on_large_stack([&] {
    Report r = testing::deep_chain(testing::kDeepChain);
    StackCuts cuts;
    std::string collapsed = report_to_collapsed(r, {}, &cuts);
    r.threads.clear();  // destroyed here: destruction recurses as deep as the tree
    ASSERT_LT(collapsed.size(), size_t(3) << 20);
    uint64_t total = 0;
    for (const std::string& line : reader_lines(collapsed)) total += std::stoull(line.substr(line.rfind(' ') + 1));
    EXPECT_EQ(total, uint64_t(testing::kDeepChain));
    EXPECT_NE(collapsed.find(";F;" + testing::kDeeperMarker + " " + std::to_string(testing::kDeepChain - 1024) + "\n"),
              std::string::npos);
    EXPECT_EQ(cuts.merged, uint64_t(testing::kDeepChain - 1024));
    EXPECT_EQ(cuts.left_out, 0u);
  });
}

}  // namespace
}  // namespace umbra
