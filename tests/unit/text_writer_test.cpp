#include "report/text_writer.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "hostile_names.h"
#include "report_fixture.h"
#include "util/large_stack.h"

namespace umbra {
namespace {

// The header says which umbra profiled which process, the process after the counts (whose lines stay the second
// and third); an older report that does not say has no such line.
TEST(TextWriter, HeaderNamesTheUmbraVersionTheProgramAndItsCommandLine) {
  std::string text = report_to_text(testing::known_named_report(), 0.5);
  EXPECT_EQ(text.substr(0, text.find("\n\n")),
            "umbra 0.1.0 shadow profile of pid 42 (runtime 10.0.0), 2.000 s, 2 threads\n"
            "not captured: stack_overflow=2\n"
            "program: MSBuild.dll  command line: /usr/share/dotnet/dotnet /sdk/MSBuild.dll -nodemode:1 "
            "'two words' 'it'\\''s'");
  std::string unknown = report_to_text(testing::known_report(), 0.5);
  EXPECT_EQ(unknown.substr(0, unknown.find("\n\n")),
            "umbra shadow profile of pid 42 (runtime 10.0.0), 2.000 s, 2 threads\n"
            "not captured: stack_overflow=2");
}

TEST(TextWriter, APeriodsHeaderSaysWhichPeriod) {
  Report report = testing::known_report();
  report.stats.period = ReportStats::Period{.index = 3, .start_unix_ns = 1, .end_unix_ns = 2, .unread = {}};
  std::string text = report_to_text(report, 0.5);
  EXPECT_EQ(text.substr(0, text.find('\n')), "umbra shadow profile of pid 42 (runtime 10.0.0), period 3: 2.000 s, 2 threads");
}

TEST(TextWriter, HeaderThreadsAndIndentedTree) {
  std::string text = report_to_text(testing::known_report(), 0.5);
  EXPECT_NE(text.find("umbra shadow profile of pid 42 (runtime 10.0.0), 2.000 s, 2 threads"), std::string::npos);
  EXPECT_NE(text.find("not captured: stack_overflow=2"), std::string::npos);
  EXPECT_NE(text.find("=== thread \"Main \"thread\"\"  os tid 42  14 calls  1000.000 ms  0 samples, 0 on CPU ===\n"),
            std::string::npos);
  EXPECT_NE(text.find("os tid 43  (exited)"), std::string::npos);
  // Hot is a child of Main: indented by two more spaces, with its share of the thread.
  auto main_at = text.find("App.Program.Main  [App.dll]");
  auto hot_at = text.find("  App.Program.Hot  [App.dll]");
  ASSERT_NE(main_at, std::string::npos);
  ASSERT_NE(hot_at, std::string::npos);
  EXPECT_LT(main_at, hot_at);
  // Columns: calls, samples, on a CPU, total ms, self ms, share of the thread, then the indented method.
  auto line_start = text.rfind('\n', hot_at) + 1;
  std::string hot_line = text.substr(line_start, text.find('\n', hot_at) - line_start);
  EXPECT_EQ(hot_line.substr(0, 71), "           10         0         0      899.000      899.000   89.9%    ")
      << hot_line;
}

// A very deep stack stays linear in size: indentation stops growing and the depth is printed instead.
TEST(TextWriter, DeepStacksDoNotGrowTheIndentation) {
  constexpr int kDepth = 3000;
  ReportNode chain = testing::node("App.Deep", 1, 1000, 1000);
  for (int d = kDepth - 2; d >= 0; --d) chain = testing::node("App.Deep", 1, 1000, 0, {std::move(chain)});
  Report r = testing::known_report();
  r.threads[0].roots.assign(1, std::move(chain));
  std::string text;
  // As in the profiler, deep trees are written on a large stack (ASan's frames are several times larger).
  run_on_large_stack([&] {
    text = report_to_text(r, 0.0);
    r.threads.clear();  // destroyed here too: destruction recurses as deep as the tree
  });
  EXPECT_LT(text.size(), size_t(kDepth) * 250);
  EXPECT_NE(text.find(std::string(120, ' ') + "[depth 2999] App.Deep"), std::string::npos);
  EXPECT_NE(text.find(std::string(120, ' ') + "App.Deep"), std::string::npos);  // depth 60, still indented
  EXPECT_EQ(text.find("[depth 60]"), std::string::npos);
}

size_t count_lines(const std::string& text) { return size_t(std::count(text.begin(), text.end(), '\n')); }

// Names come from the profiled program: none of their bytes may end a line or reach the terminal as a control.
TEST(TextWriter, HostileNamesStayOnTheirLineAndCannotControlATerminal) {
  Report r = testing::known_report();
  size_t ordinary_lines = count_lines(report_to_text(r, 0.0));
  r.threads[0].name = testing::kHostileName;
  testing::set_name(r.threads[0].roots[0], testing::kHostileName);
  testing::set_module(r.threads[0].roots[0], testing::kHostileName);
  std::string text = report_to_text(r, 0.0);
  EXPECT_EQ(testing::first_unsafe(text), "");
  EXPECT_EQ(count_lines(text), ordinary_lines) << text;
  std::string shown = "\"a\\x0ab\\x0dc\\x1b]0;pwned\\x07d\\x1b[2Je\\u2028f\\u0085g\\x7fh\\u009bi\"";
  EXPECT_NE(text.find("=== thread " + shown + "  os tid 42"), std::string::npos) << text;
}

// A long thread name is cut, not the header line: the column titles keep a line of their own.
TEST(TextWriter, ALongThreadNameKeepsTheHeaderWhole) {
  Report r = testing::known_report();
  r.threads[0].name = std::string(5000, 'x');
  std::string text = report_to_text(r, 0.0);
  auto start = text.find("=== thread \"x");
  ASSERT_NE(start, std::string::npos);
  auto end = text.find('\n', start);
  std::string header = text.substr(start, end - start);
  EXPECT_EQ(header.substr(header.size() - 12), "0 on CPU ===") << header;
  EXPECT_NE(header.find("x\xe2\x80\xa6\"  os tid 42"), std::string::npos) << header;  // cut with an ellipsis
  EXPECT_LT(header.size(), 1200u);
  std::string titles = text.substr(end + 1, text.find('\n', end + 1) - end - 1);
  EXPECT_EQ(titles, "        calls   samples    on cpu     total ms      self ms  thread  method");
}

// Sampled mode: a thread is its samples, those taken on a CPU and the CPU time it used; no calls or times.
TEST(TextWriter, SampledThreadsShowSamplesAndCpuTime) {
  Report r = testing::known_sampled_report(4, 6);
  r.threads[0].roots[0].children[0].samples = 6;
  r.threads[0].roots[0].children[0].self_cpu_samples = 5;
  r.threads[0].roots[0].children[0].cpu_samples = 5;
  r.threads[0].roots[0].cpu_samples = 5;
  r.threads[0].cpu_ns = 1'234'567'890;
  std::string text = report_to_text(r, 0.0);
  EXPECT_NE(text.find("=== thread \"Main \"thread\"\"  os tid 42  10 samples, 5 on CPU  CPU 1.235 s ===\n"),
            std::string::npos) << text;
  auto hot_at = text.find("App.Program.Hot");
  auto line_start = text.rfind('\n', hot_at) + 1;
  EXPECT_EQ(text.substr(line_start, 46), "           10         6         5      899.000") << text;
}

TEST(TextWriter, FoldsNodesUnderTheMinimumPercent) {
  std::string text = report_to_text(testing::known_report(), 0.5);
  EXPECT_EQ(text.find("App.Program.Tiny"), std::string::npos);  // 0.1% of its thread
  EXPECT_NE(text.find("... 1 more under 0.5% each"), std::string::npos);
  std::string all = report_to_text(testing::known_report(), 0.0);
  EXPECT_NE(all.find("App.Program.Tiny"), std::string::npos);
}

TEST(TextWriter, SortsChildrenByTotal) {
  Report r = testing::known_report();
  std::swap(r.threads[0].roots[0].children[0], r.threads[0].roots[0].children[1]);
  std::string text = report_to_text(r, 0.0);
  EXPECT_LT(text.find("App.Program.Hot"), text.find("App.Program.Tiny"));
}

TEST(TextWriter, NotCapturedListsTheSamplersDropsToo) {
  Report r = testing::known_report();
  r.stats.sampler.emplace().drops = NamedCounts{{"snapshot_unsafe", 3}, {"no_frames", 0}};
  EXPECT_NE(report_to_text(r, 0.5).find("not captured: stack_overflow=2 sampler.snapshot_unsafe=3\n"),
            std::string::npos);
}

// The header's next lines come from the stats: focused shadow mode's patterns and what they hooked, every drop that
// is not 0 (the hooks', then the sampler's), sampled mode's stacks that stopped short of their thread's start, its check of its stacks by signal, and shadow mode's
// reconciliation.
TEST(TextWriter, HeaderShowsTheDropsAndTheReconciliationFromTheStats) {
  Report r = testing::known_report();
  r.stats = testing::every_stat();
  std::string text = report_to_text(r, 0.5);
  size_t second = text.find('\n') + 1;
  EXPECT_EQ(text.substr(second, text.find("\n\n") - second),
            "hooks for [App]*,!*.Tick: 44 methods hooked (exact calls), 45 not (samples only), 46 inlinings refused, "
            "precompiled code kept; 50 hooked methods compiled without hooks while a module loaded (their calls are "
            "undercounted); exact calls of more: --hooks-for PATTERNS or all\n"
            "not captured: stack_overflow=5\n"
            "outside managed code: 20 samples of threads with no managed frame (sampler.no_frames)\n"
            "stacks incomplete: 69 samples under [stack incomplete], their walk stopped short of the thread's start: "
            "no_frame_record=69\n"
            "stacks by signal checked against the runtime's walks: 61 walks, 98.4% of 64 managed frames agree; walks "
            "that differ: missing_leaf=65; 66 threads whose stacks by signal kept differing sampled from snapshot walks "
            "instead (67 samples)\n"
            "reconciled: 21 snapshots, 22 frames compared, 23 unexplained; repairs: missed_leave=28; "
            "spliced: native_segment=29");
  r.stats.reconcile.reset();  // sampled mode
  EXPECT_EQ(report_to_text(r, 0.5).find("reconciled:"), std::string::npos);
}

// The line of a node some of whose calls came through a tail call says how many, and no other line does.
TEST(TextWriter, MarksCallsEnteredThroughATailCall) {
  Report r = testing::known_report();
  r.threads[0].roots[0].children[0].tail_entries = 1234;  // App.Program.Hot
  std::string text = report_to_text(r, 0.0);
  auto hot_at = text.find("App.Program.Hot");
  ASSERT_NE(hot_at, std::string::npos);
  std::string hot_rest = text.substr(hot_at, text.find('\n', hot_at) - hot_at);
  EXPECT_EQ(hot_rest, "App.Program.Hot  [App.dll]  (1,234 via tail call)");
  EXPECT_EQ(text.find("via tail call", hot_at + hot_rest.size()), std::string::npos);
  EXPECT_EQ(text.find("via tail call"), hot_at + hot_rest.find("via tail call"));
}

TEST(TextWriter, SaysWhenNothingWasDropped) {
  Report r = testing::known_report();
  r.stats = ReportStats{};
  EXPECT_NE(report_to_text(r, 0.5).find("not captured: nothing"), std::string::npos);
}

}  // namespace
}  // namespace umbra
