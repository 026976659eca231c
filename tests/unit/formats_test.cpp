#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <vector>

#include "report/collapsed_writer.h"
#include "report/html_writer.h"
#include "report/json_parser.h"
#include "report/json_writer.h"
#include "report/report_reader.h"
#include "report/speedscope_writer.h"
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
}

TEST(CollapsedWriter, SeparatorsInNamesCannotSplitAFrame) {
  Report r = testing::known_report();
  r.threads[0].roots[0].name = "A;B C";
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
  main.name = "Main\xe2\x80\xa8" "Forged 999";
  main.self_samples = 1;
  main.children[0].name = "Ends in 999";
  main.children[0].self_samples = 2;
  main.children[1].name = testing::kHostileName + " 1.5";
  main.children[1].self_samples = 3;
  r.threads[1].roots[0].name = "Tab\t7";
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
    root.name = name;
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

constexpr int kDeepChain = 8000;
const std::string kDeeperMarker = "[deeper frames not shown]";

// Written in full, every level repeats the path above it: 8,000 levels made 64 MB of collapsed stacks.
TEST(CollapsedWriter, ADeepChainIsCutNotSquared) {
  run_on_large_stack([&] {
    Report r = testing::deep_chain(kDeepChain);
    StackCuts cuts;
    std::string collapsed = report_to_collapsed(r, {}, &cuts);
    r.threads.clear();  // destroyed here: destruction recurses as deep as the tree
    ASSERT_LT(collapsed.size(), size_t(3) << 20);
    uint64_t total = 0;
    for (const std::string& line : reader_lines(collapsed)) total += std::stoull(line.substr(line.rfind(' ') + 1));
    EXPECT_EQ(total, uint64_t(kDeepChain));
    EXPECT_NE(collapsed.find(";F;" + kDeeperMarker + " " + std::to_string(kDeepChain - 1024) + "\n"),
              std::string::npos);
    EXPECT_EQ(cuts.merged, uint64_t(kDeepChain - 1024));
    EXPECT_EQ(cuts.left_out, 0u);
  });
}

// The same for speedscope's sampled profiles (8,000 levels of one frame made 64 MB).
TEST(SpeedscopeWriter, ADeepSampledChainIsCutNotSquared) {
  run_on_large_stack([&] {
    Report r = testing::deep_chain(kDeepChain);
    StackCuts cuts;
    std::string speedscope = report_to_speedscope(r, "t", &cuts);
    r.threads.clear();
    ASSERT_LT(speedscope.size(), size_t(4) << 20);
    JsonValue doc = parse_json(speedscope);
    const JsonValue& profile = doc.find("profiles")->as_array()[0];
    uint64_t total = 0;
    for (const JsonValue& w : profile.find("weights")->as_array()) total += w.as_uint();
    EXPECT_EQ(total, uint64_t(kDeepChain));
    const auto& stacks = profile.find("samples")->as_array();
    ASSERT_EQ(stacks.size(), 1025u);  // the first 1024 levels, then one stack for the rest
    ASSERT_EQ(stacks.back().as_array().size(), 1025u);
    const auto& frames = doc.find("shared")->find("frames")->as_array();
    EXPECT_EQ(frames[stacks.back().as_array().back().as_uint()].find("name")->as_string(), kDeeperMarker);
    EXPECT_EQ(cuts.merged, uint64_t(kDeepChain - 1024));
  });
}

TEST(SpeedscopeWriter, ShadowModeIsEventedAndNested) {
  JsonValue doc = parse_json(report_to_speedscope(testing::known_report(), "t"));
  EXPECT_EQ(doc.find("$schema")->as_string(), "https://www.speedscope.app/file-format-schema.json");
  const auto& frames = doc.find("shared")->find("frames")->as_array();
  EXPECT_EQ(frames.size(), 4u);  // Main, Hot, Tiny, Run
  const auto& profiles = doc.find("profiles")->as_array();
  ASSERT_EQ(profiles.size(), 2u);
  const JsonValue& main = profiles[0];
  EXPECT_EQ(main.find("type")->as_string(), "evented");
  EXPECT_EQ(main.find("unit")->as_string(), "nanoseconds");
  EXPECT_EQ(main.find("endValue")->as_uint(), 1'000'000'000u);
  const auto& events = main.find("events")->as_array();
  ASSERT_EQ(events.size(), 6u);
  // Main opens at 0; Hot [0, 899 ms); Tiny [899, 900 ms); Main closes at 1 s.
  EXPECT_EQ(events[1].find("at")->as_uint(), 0u);
  EXPECT_EQ(events[2].find("at")->as_uint(), 899'000'000u);
  EXPECT_EQ(events[3].find("at")->as_uint(), 899'000'000u);
  EXPECT_EQ(events[4].find("at")->as_uint(), 900'000'000u);
  EXPECT_EQ(events[5].find("type")->as_string(), "C");
  EXPECT_EQ(events[5].find("at")->as_uint(), 1'000'000'000u);
}

TEST(SpeedscopeWriter, ChildrenAreClippedToTheirParent) {
  Report r = testing::known_report();
  r.threads[0].roots[0].children[0].total_ns = 2'000'000'000;  // rounding gone wild: longer than its parent
  JsonValue doc = parse_json(report_to_speedscope(r, "t"));
  uint64_t last = 0;
  for (const auto& e : doc.find("profiles")->as_array()[0].find("events")->as_array()) {
    EXPECT_GE(e.find("at")->as_uint(), last);
    EXPECT_LE(e.find("at")->as_uint(), 1'000'000'000u);
    last = e.find("at")->as_uint();
  }
}

TEST(SpeedscopeWriter, SampledModeHasOneStackPerLeaf) {
  Report r = testing::known_report();
  r.mode = "sampled";
  r.threads[0].roots[0].self_samples = 1;
  r.threads[0].roots[0].children[0].self_samples = 3;
  r.threads[0].roots[0].samples = 4;
  JsonValue doc = parse_json(report_to_speedscope(r, "t"));
  const JsonValue& p = doc.find("profiles")->as_array()[0];
  EXPECT_EQ(p.find("type")->as_string(), "sampled");
  ASSERT_EQ(p.find("samples")->as_array().size(), 2u);
  EXPECT_EQ(p.find("samples")->as_array()[1].as_array().size(), 2u);  // Main, Hot
  EXPECT_EQ(p.find("weights")->as_array()[1].as_uint(), 3u);
  EXPECT_EQ(p.find("endValue")->as_uint(), 4u);
}

TEST(HtmlWriter, EmbedsTheTreeSafely) {
  Report r = testing::known_report();
  r.threads[0].roots[0].children[1].name = "Evil</script><script>alert(1)";
  std::string page = report_to_html(r);
  EXPECT_EQ(page.find("/*UMBRA_DATA*/"), std::string::npos);
  EXPECT_EQ(page.find("</script><script>alert"), std::string::npos) << "a name cannot end the data element";
  EXPECT_NE(page.find("Evil\\u003c/script\\u003e\\u003cscript\\u003ealert(1)"), std::string::npos);
  // The data is flat, in preorder: Main (a root), then Hot and the renamed Tiny under it, then Run on thread 2.
  auto data_at = page.find("<script id=\"umbra-data\" type=\"application/json\">");
  ASSERT_NE(data_at, std::string::npos);
  auto start = page.find('>', data_at) + 1;
  std::string data = page.substr(start, page.find("</script>", start) - start);
  JsonValue doc = parse_json(data);
  const auto& nodes = doc.find("nodes")->as_array();
  ASSERT_EQ(nodes.size(), 4u);
  EXPECT_EQ(nodes[0].as_array()[0].as_int(), -1);  // a root
  EXPECT_EQ(nodes[1].as_array()[0].as_int(), 0);   // under Main
  EXPECT_EQ(nodes[1].as_array()[4].as_uint(), 10u);  // Hot's calls
  EXPECT_EQ(nodes[3].as_array()[0].as_int(), -1);  // thread 2's root
  const auto& threads = doc.find("threads")->as_array();
  ASSERT_EQ(threads.size(), 2u);
  EXPECT_EQ(threads[1].find("first")->as_uint(), 3u);
  EXPECT_EQ(doc.find("strings")->as_array()[doc.find("nodes")->as_array()[2].as_array()[1].as_uint()].as_string(),
            "Evil</script><script>alert(1)");
}

// The data is JSON inside <script>: a "<!--" there would stop the page's script, so it holds no '<' at all.
TEST(HtmlWriter, NamesCannotOpenACommentOrCloseTheData) {
  Report r = testing::known_report();
  r.threads[0].name = "<!--<script>";
  r.threads[0].roots[0].children[0].name = "<!--<script>";
  r.threads[0].roots[0].children[1].name = "</script> & >";
  std::string page = report_to_html(r);
  const std::string open = "<script id=\"umbra-data\" type=\"application/json\">";
  auto start = page.find(open);
  ASSERT_NE(start, std::string::npos);
  start += open.size();
  std::string data = page.substr(start, page.find("</script>", start) - start);
  EXPECT_EQ(data.find('<'), std::string::npos) << data;
  JsonValue doc = parse_json(data);
  EXPECT_EQ(doc.find("threads")->as_array()[0].find("name")->as_string(), "<!--<script>");
  const auto& strings = doc.find("strings")->as_array();
  EXPECT_NE(std::find_if(strings.begin(), strings.end(),
                         [](const JsonValue& s) { return s.as_string() == "</script> & >"; }),
            strings.end());
}

TEST(ReportReader, ReadsWhatTheWriterWrote) {
  Report original = testing::known_report();
  Report back = report_from_json(parse_json(report_to_json(original)));
  EXPECT_EQ(report_to_json(back), report_to_json(original));
}

TEST(ReportReader, SaysWhereADocumentIsWrong) {
  auto error_of = [](const char* text) {
    try {
      report_from_json(parse_json(text));
    } catch (const ReportFormatError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("[]"), "document: not a JSON object");
  EXPECT_EQ(error_of(R"({"schema":"x"})"), "schema: not \"umbra-report/1\" (is this an umbra report?)");
  EXPECT_EQ(error_of(R"({"schema":"umbra-report/1","mode":"shadow","threads":{}})"),
            "document.threads: not an array");
  EXPECT_EQ(error_of(R"({"schema":"umbra-report/1","mode":"shadow","threads":[{"roots":[{"name":"a"}]}]})"),
            "threads[0].roots[0]: missing \"children\"");
}

}  // namespace
}  // namespace umbra
