#include "report/json_writer.h"

#include <gtest/gtest.h>

#include <functional>
#include <random>

#include "report/json_parser.h"
#include "report/report_reader.h"
#include "report/report_stream_reader.h"
#include "report_fixture.h"

namespace umbra {
namespace {

TEST(JsonWriter, WritesTheSchemaFieldsExactly) {
  Report r = testing::known_report();
  r.threads[0].roots[0].children[0].self_cpu_samples = 4;  // Hot: 4 of its samples on a CPU
  r.threads[0].roots[0].children[0].cpu_samples = 4;
  r.threads[0].roots[0].cpu_samples = 4;
  r.threads[0].cpu_ns = 123456789;
  JsonValue doc = parse_json(report_to_json(r));
  EXPECT_EQ(doc.find("schema")->as_string(), "umbra-report/4");
  EXPECT_EQ(doc.find("mode")->as_string(), "shadow");
  EXPECT_EQ(doc.find("pid")->as_int(), 42);
  EXPECT_EQ(doc.find("runtime")->as_string(), "10.0.0");
  EXPECT_EQ(doc.find("duration_ns")->as_uint(), 2'000'000'000u);
  const auto& threads = doc.find("threads")->as_array();
  ASSERT_EQ(threads.size(), 2u);
  EXPECT_EQ(threads[0].find("os_tid")->as_uint(), 42u);
  EXPECT_EQ(threads[0].find("managed_id")->as_uint(), 7u);
  EXPECT_EQ(threads[0].find("name")->as_string(), "Main \"thread\"");
  EXPECT_TRUE(threads[1].find("managed_id")->is_null());
  EXPECT_TRUE(threads[1].find("name")->is_null());
  EXPECT_EQ(threads[0].find("cpu_ns")->as_uint(), 123456789u);
  EXPECT_TRUE(threads[1].find("cpu_ns")->is_null());
  // Each method once; nodes in pre-order, each an array of numbers: frame, children, calls, samples, self_samples,
  // total_ns, self_ns, tail_entries, cpu_samples, self_cpu_samples, without the zeros at its end.
  EXPECT_EQ(doc.find("node_fields")->dump(),
            R"(["frame","children","calls","samples","self_samples","total_ns","self_ns","tail_entries",)"
            R"("cpu_samples","self_cpu_samples"])");
  EXPECT_EQ(doc.find("frames")->dump(), R"([["App.Program.Main","App.dll","managed"],)"
                                        R"(["App.Program.Hot","App.dll","managed"],)"
                                        R"(["App.Program.Tiny","App.dll","managed"],)"
                                        R"(["App.Worker.Run","App.dll","managed"]])");
  EXPECT_EQ(threads[0].find("nodes")->dump(),
            "[[0,2,1,0,0,1000000000,100000000,0,4],[1,0,10,0,0,899000000,899000000,0,4,4],"
            "[2,0,3,0,0,1000000,1000000]]");
  EXPECT_EQ(threads[1].find("nodes")->dump(), "[[3,0,1,0,0,5000000,5000000]]");
  EXPECT_EQ(doc.find("stats")->find("drops")->find("stack_overflow")->as_uint(), 2u);
}

// Which process and which umbra: exact in the JSON, null (and an empty list) where the report does not know.
TEST(JsonWriter, NamesTheProcessAndTheUmbraThatProfiledIt) {
  Report named = testing::known_named_report();
  JsonValue doc = parse_json(report_to_json(named));
  EXPECT_EQ(doc.find("program")->as_string(), "MSBuild.dll");
  EXPECT_EQ(doc.find("command_line")->dump(),
            R"(["/usr/share/dotnet/dotnet","/sdk/MSBuild.dll","-nodemode:1","two words","it's"])");
  EXPECT_EQ(doc.find("umbra_version")->as_string(), "0.1.0");
  JsonValue unknown = parse_json(report_to_json(testing::known_report()));
  EXPECT_TRUE(unknown.find("program")->is_null());
  EXPECT_EQ(unknown.find("command_line")->dump(), "[]");
  EXPECT_TRUE(unknown.find("umbra_version")->is_null());
  // Both readers take them back.
  Report general = report_from_json(doc);
  EXPECT_EQ(general.program, named.program);
  EXPECT_EQ(general.command_line, named.command_line);
  EXPECT_EQ(general.umbra_version, named.umbra_version);
  std::optional<Report> streamed = read_streamed_report(report_to_json(named));
  ASSERT_TRUE(streamed.has_value());
  EXPECT_EQ(streamed->program, named.program);
  EXPECT_EQ(streamed->command_line, named.command_line);
  EXPECT_EQ(streamed->umbra_version, named.umbra_version);
}

TEST(JsonWriter, UnmeasuredCountersAreNull) {
  Report r = testing::known_report();
  r.threads[1].roots[0].calls.reset();
  r.threads[1].roots[0].total_ns.reset();
  r.threads[1].roots[0].self_ns.reset();
  JsonValue doc = parse_json(report_to_json(r));
  EXPECT_EQ(doc.find("threads")->as_array()[1].find("nodes")->dump(), "[[3,0,null,0,0,null,null]]");
}

// A node of zeros is its frame and its children: the two are written whatever they are, and read back as zeros.
TEST(JsonWriter, ANodeEndsAtItsLastNumberThatIsNotZero) {
  Report r = testing::known_report();
  ReportNode& tiny = r.threads[0].roots[0].children[1];
  tiny.calls = 0;
  tiny.total_ns = 0;
  tiny.self_ns = 0;
  r.threads[1].roots[0].tail_entries = 1;  // a zero between two counts stays
  r.threads[1].roots[0].total_ns = 0;
  const std::string text = report_to_json(r);
  JsonValue doc = parse_json(text);
  EXPECT_EQ(doc.find("threads")->as_array()[0].find("nodes")->as_array()[2].dump(), "[2,0]");
  EXPECT_EQ(doc.find("threads")->as_array()[1].find("nodes")->dump(), "[[3,0,1,0,0,0,5000000,1]]");
  for (const Report& back : {report_from_json(doc), read_streamed_report(text).value()}) {
    const ReportNode& read = back.threads[0].roots[0].children[1];
    EXPECT_EQ(read.calls, 0u);
    EXPECT_EQ(read.total_ns, 0u);
    EXPECT_EQ(read.self_cpu_samples, 0u);
    EXPECT_EQ(back.threads[1].roots[0].tail_entries, 1u);
    EXPECT_EQ(back.threads[1].roots[0].self_ns, 5000000u);
  }
}

TEST(JsonWriter, AFrameIsItsNameModuleAndKindTogether) {
  Report r = testing::known_report();
  testing::set_name(r.threads[1].roots[0], "App.Program.Hot");  // same name and module as a frame of thread 0...
  testing::set_kind(r.threads[1].roots[0], "native");            // ...but another kind: a frame of its own
  JsonValue doc = parse_json(report_to_json(r));
  EXPECT_EQ(doc.find("frames")->as_array().size(), 4u);
  EXPECT_EQ(doc.find("frames")->as_array()[3].dump(), R"(["App.Program.Hot","App.dll","native"])");
  testing::set_kind(r.threads[1].roots[0], "managed");
  doc = parse_json(report_to_json(r));
  EXPECT_EQ(doc.find("frames")->as_array().size(), 3u);
  EXPECT_EQ(doc.find("threads")->as_array()[1].find("nodes")->as_array()[0].as_array()[0].as_uint(), 1u);
}

// At the end of a run every frame interned is listed, at its id, with no walk to number them: the report read back
// is the same report.
TEST(JsonWriter, ListsEveryInternedFrameAtItsId) {
  Report r = testing::known_report();
  const ReportFrame* unused = intern_frame("App.Program.NeverCalled", "App.dll");
  const std::string text = report_to_json(r, nullptr, FrameListing::kEveryInterned);
  JsonValue doc = parse_json(text);
  const auto& frames = doc.find("frames")->as_array();
  ASSERT_GT(frames.size(), unused->id);
  EXPECT_EQ(frames[unused->id].dump(), R"(["App.Program.NeverCalled","App.dll","managed"])");
  const ReportFrame* hot = r.threads[0].roots[0].children[0].frame;
  EXPECT_EQ(doc.find("threads")->as_array()[0].find("nodes")->as_array()[1].as_array()[0].as_uint(), hot->id);
  EXPECT_EQ(report_to_json(report_from_json(doc)), report_to_json(r));
  EXPECT_EQ(report_to_json(read_streamed_report(text).value()), report_to_json(r));
  SharedWork work(1);
  EXPECT_EQ(report_to_json(r, &work, FrameListing::kEveryInterned), text);
}

// Written by several threads, a large report is the text one thread writes, byte for byte.
TEST(JsonWriter, HelpersWriteTheSameTextAsOneThread) {
  std::mt19937_64 random(11);
  size_t made = 0;
  std::function<ReportNode(int)> make = [&](int depth) {
    ReportNode node;
    node.frame = intern_frame("App.M" + std::to_string(random() % 500), "App.dll");
    node.calls = random() % 1000;
    if (random() % 3) node.total_ns = random();
    node.samples = random() % 7;
    ++made;
    size_t children = depth < 9 ? random() % 5 : 0;
    for (size_t i = 0; i < children; ++i) node.children.push_back(make(depth + 1));
    return node;
  };
  Report report = testing::known_report();
  for (ReportThread& thread : report.threads)
    for (int i = 0; i < 6; ++i) thread.roots.push_back(make(0));
  ASSERT_GT(made, 10'000u);
  std::string alone = report_to_json(report);
  for (unsigned helpers : {1u, 3u}) {
    SharedWork work(helpers);
    // A helper that the machine's load keeps off the CPU takes nothing: rounds go on until one took a piece.
    for (int round = 0; round < 3 || (work.shared() == 0 && round < 500); ++round)
      ASSERT_TRUE(report_to_json(report, &work) == alone) << helpers << " helpers, round " << round << ": differs";
    EXPECT_GT(work.shared(), 0u) << "no part of the report went to a helper: nothing above was compared";
  }
}

}  // namespace
}  // namespace umbra
