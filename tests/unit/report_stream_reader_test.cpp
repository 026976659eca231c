#include "report/report_stream_reader.h"

#include <gtest/gtest.h>

#include <string>

#include "report/json_parser.h"
#include "report/json_writer.h"
#include "report/report_reader.h"
#include "report/text_writer.h"
#include "report_fixture.h"

namespace umbra {
namespace {

// Run (2 children: Step, which calls write, then Step again), as umbra writes it, with a member it does not know.
const std::string kSmall =
    R"({"schema":"umbra-report/2","mode":"shadow","pid":42,"runtime":"10.0.0","duration_ns":2000000000,)"
    R"("node_fields":["frame","children","calls","samples","self_samples","total_ns","self_ns","tail_entries"],)"
    R"("frames":[["App.Worker.Run","App.dll","managed"],["App.Worker.Step","App.dll","managed"],)"
    R"(["write","libc.so.6","native"]],)"
    R"("threads":[{"os_tid":43,"managed_id":1,"name":"Worker","exited":true,"managed_samples":5,)"
    R"("native_samples":null,"extra":[[1],{"a":2}],"nodes":[0,2,1,7,2,5000000,3000000,0,)"
    R"(1,1,2,4,3,1000000,900000,1,  2,0,null,1,1,100000,null,0,  1,0,3,1,1,1000000,1000000,0]}],)"
    R"("stats":{"enter_hooks":3,"future":{"x":[1,-2.5]}}})";

// /3: two numbers more a node, its CPU samples and its own, and the thread's CPU time.
TEST(ReportStreamReader, ReadsTheCpuSamplesOfTheThirdSchema) {
  const std::string v3 =
      R"({"schema":"umbra-report/3","mode":"sampled","node_fields":["frame","children","calls","samples",)"
      R"("self_samples","total_ns","self_ns","tail_entries","cpu_samples","self_cpu_samples"],)"
      R"("frames":[["App.Program.Main","App.dll","managed"],["App.Program.Hot","App.dll","managed"]],)"
      R"("threads":[{"os_tid":7,"cpu_ns":1500000,)"
      R"("nodes":[0,1,null,9,1,null,null,0,6,1,  1,0,null,8,8,null,null,0,5,5]}]})";
  std::optional<Report> r = read_streamed_report(v3);
  ASSERT_TRUE(r.has_value());
  const ReportNode& main = r->threads[0].roots[0];
  EXPECT_EQ(r->threads[0].cpu_ns, 1'500'000u);
  EXPECT_EQ(main.cpu_samples, 6u);
  EXPECT_EQ(main.self_cpu_samples, 1u);
  EXPECT_EQ(main.children[0].cpu_samples, 5u);
  EXPECT_EQ(main.children[0].self_cpu_samples, 5u);
  EXPECT_EQ(report_to_json(*r), report_to_json(report_from_json(parse_json(v3))));
  // /3 with /2's fields is no report of either.
  std::string mixed = kSmall;
  mixed.replace(mixed.find("umbra-report/2"), 14, "umbra-report/3");
  EXPECT_FALSE(read_streamed_report(mixed).has_value());
  EXPECT_THROW(report_from_json(parse_json(mixed)), ReportFormatError);
}

// /4: each node an array, its trailing zeros left out; read as the general reader reads it, and refused (for the
// general reader to say why) where that reader refuses it.
TEST(ReportStreamReader, ReadsTheArraysOfTheFourthSchema) {
  const std::string v4 =
      R"({"schema":"umbra-report/4","mode":"shadow","node_fields":["frame","children","calls","samples",)"
      R"("self_samples","total_ns","self_ns","tail_entries","cpu_samples","self_cpu_samples"],)"
      R"("frames":[["App.Program.Main","App.dll","managed"],["App.Program.Hot","App.dll","managed"]],)"
      R"("threads":[{"os_tid":7,"nodes":[[0,2,1],[1,0,10,3,3,0,0,0,2,2],[1,0,null,0,1]]}]})";
  std::optional<Report> r = read_streamed_report(v4);
  ASSERT_TRUE(r.has_value());
  const ReportNode& main = r->threads[0].roots[0];
  EXPECT_EQ(main.calls, 1u);
  EXPECT_EQ(main.samples, 0u);
  EXPECT_EQ(main.total_ns, 0u);
  ASSERT_EQ(main.children.size(), 2u);
  EXPECT_EQ(main.children[0].self_cpu_samples, 2u);
  EXPECT_FALSE(main.children[1].calls.has_value());
  EXPECT_EQ(main.children[1].self_samples, 1u);
  EXPECT_EQ(report_to_json(*r), report_to_json(report_from_json(parse_json(v4))));
  for (size_t size = 0; size < v4.size(); ++size) EXPECT_FALSE(read_streamed_report(v4.substr(0, size)).has_value());
  auto with = [&](const std::string& from, const std::string& to) {
    std::string text = v4;
    text.replace(text.find(from), from.size(), to);
    return text;
  };
  for (const std::string& bad : {with("[0,2,1]", "[0]"), with("[0,2,1]", "[0,2,1,0,0,0,0,0,0,0,0]"),
                                 with("[0,2,1]", "[0,2,[1]]"), with("[0,2,1]", "[0,2,{}]"),
                                 with("[[0,2,1],", "[0,2,1,"), with("[0,2,1]", "[0,3,1]"),
                                 with("[0,2,1]", "[0,null,1]")}) {
    EXPECT_FALSE(read_streamed_report(bad).has_value()) << bad;
    EXPECT_THROW(load_report_from_text(bad), ReportFormatError) << bad;
  }
}

TEST(ReportStreamReader, ReadsASmallReportExactly) {
  std::optional<Report> r = read_streamed_report(kSmall);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->mode, "shadow");
  EXPECT_EQ(r->pid, 42);
  EXPECT_EQ(r->runtime, "10.0.0");
  EXPECT_EQ(r->duration_ns, 2'000'000'000u);
  ASSERT_EQ(r->threads.size(), 1u);
  const ReportThread& t = r->threads[0];
  EXPECT_EQ(t.os_tid, 43u);
  EXPECT_EQ(t.managed_id, 1u);
  EXPECT_EQ(t.name, "Worker");
  EXPECT_TRUE(t.exited);
  EXPECT_EQ(t.managed_samples, 5u);
  EXPECT_EQ(t.native_samples, std::nullopt);
  ASSERT_EQ(t.roots.size(), 1u);
  const ReportNode& run = t.roots[0];
  EXPECT_EQ(run.name(), "App.Worker.Run");
  EXPECT_EQ(run.module(), "App.dll");
  EXPECT_EQ(run.kind(), "managed");
  EXPECT_EQ(run.calls, 1u);
  EXPECT_EQ(run.samples, 7u);
  EXPECT_EQ(run.self_samples, 2u);
  EXPECT_EQ(run.total_ns, 5'000'000u);
  EXPECT_EQ(run.self_ns, 3'000'000u);
  EXPECT_EQ(run.tail_entries, 0u);
  ASSERT_EQ(run.children.size(), 2u);
  const ReportNode& step = run.children[0];
  EXPECT_EQ(step.name(), "App.Worker.Step");
  EXPECT_EQ(step.calls, 2u);
  EXPECT_EQ(step.tail_entries, 1u);
  ASSERT_EQ(step.children.size(), 1u);
  const ReportNode& write = step.children[0];
  EXPECT_EQ(write.name(), "write");
  EXPECT_EQ(write.module(), "libc.so.6");
  EXPECT_EQ(write.kind(), "native");
  EXPECT_EQ(write.calls, std::nullopt);
  EXPECT_EQ(write.total_ns, 100'000u);
  EXPECT_EQ(write.self_ns, std::nullopt);
  EXPECT_TRUE(write.children.empty());
  const ReportNode& again = run.children[1];
  EXPECT_EQ(again.name(), "App.Worker.Step");
  EXPECT_EQ(again.calls, 3u);
  EXPECT_TRUE(again.children.empty());
  EXPECT_EQ(r->stats.enter_hooks, 3u);
  ASSERT_EQ(r->stats.unread.size(), 1u);
  EXPECT_EQ(r->stats.unread[0].first, "future");
  EXPECT_EQ(r->stats.unread[0].second.dump(), R"({"x":[1,-2.5]})");
  // And the same as the general reader's.
  EXPECT_EQ(report_to_json(*r), report_to_json(report_from_json(parse_json(kSmall))));
}

TEST(ReportStreamReader, ReadsWhatTheWriterWrote) {
  Report original = testing::known_report();
  original.runtime_frames = RuntimeFrames::kKeep;  // not the default: read, not assumed
  original.stats = testing::every_stat();
  std::optional<Report> back = read_streamed_report(report_to_json(original));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(report_to_json(*back), report_to_json(original));
  EXPECT_EQ(back->stats, original.stats);
}

// A thread's own checks of its stacks by signal: written, read back by both readers, and said by --verify's lines
// for the thread that differed only.
TEST(ReportStreamReader, ReadsEachThreadsWalkChecks) {
  Report original = testing::known_report();
  original.mode = "sampled";
  original.threads[0].walks_checked = 12;
  original.threads[0].walk_frames_checked = 400;
  original.threads[0].walk_frames_agreed = 398;
  original.threads[0].sampled_by_snapshot = true;
  original.threads[1].walks_checked = 3;
  original.threads[1].walk_frames_checked = 30;
  original.threads[1].walk_frames_agreed = 30;
  const std::string json = report_to_json(original);
  std::optional<Report> streamed = read_streamed_report(json);
  ASSERT_TRUE(streamed.has_value());
  Report general = report_from_json(parse_json(json));
  for (const Report* back : {&*streamed, &general}) {
    EXPECT_EQ(back->threads[0].walks_checked, 12u);
    EXPECT_EQ(back->threads[0].walk_frames_checked, 400u);
    EXPECT_EQ(back->threads[0].walk_frames_agreed, 398u);
    EXPECT_EQ(back->threads[1].walk_frames_agreed, 30u);
  }
  EXPECT_EQ(report_to_json(*streamed), json);
  EXPECT_EQ(thread_walk_check_lines(original),
            std::vector<std::string>{"thread \"Main \"thread\"\" os tid 42: 12 walks, 99.5% of 400 managed frames agree; "
                                     "sampled from snapshot walks since"});
}

// Every cut of the document is refused, and load_report_from_text says where the text ends.
TEST(ReportStreamReader, RefusesATruncatedReport) {
  for (size_t size = 0; size < kSmall.size(); ++size) {
    std::string cut = kSmall.substr(0, size);
    EXPECT_FALSE(read_streamed_report(cut).has_value()) << cut;
    EXPECT_THROW(load_report_from_text(cut), JsonParseError) << cut;
  }
  try {
    load_report_from_text(kSmall.substr(0, kSmall.find("\"nodes\":[") + 9));
    ADD_FAILURE() << "read";
  } catch (const JsonParseError& e) {
    EXPECT_STREQ(e.what(), "unexpected end of input");
  }
}

// What it leaves to the general reader: errors, which that reader names, and layouts umbra does not write.
TEST(ReportStreamReader, LeavesTheRestToTheGeneralReader) {
  auto with = [](const std::string& from, const std::string& to) {
    std::string text = kSmall;
    text.replace(text.find(from), from.size(), to);
    return text;
  };
  auto error_of = [](const std::string& text) {
    try {
      load_report_from_text(text);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string bad_frame = with("[0,2,1,", "[9,2,1,");
  EXPECT_FALSE(read_streamed_report(bad_frame).has_value());
  EXPECT_EQ(error_of(bad_frame), "threads[0].nodes[0].frame: no such frame");
  const std::string too_many = with("[0,2,1,", "[0,3,1,");
  EXPECT_FALSE(read_streamed_report(too_many).has_value());
  EXPECT_EQ(error_of(too_many),
            "threads[0].nodes[1].children: more than the nodes that follow less the 2 still owed to the nodes it "
            "is in");
  const std::string huge_claim = with("[0,2,1,", "[0,18446744073709551615,1,");
  EXPECT_FALSE(read_streamed_report(huge_claim).has_value());
  EXPECT_EQ(error_of(huge_claim), "threads[0].nodes[0].children: more than the nodes that follow");
  const std::string negative = with("1,1,2,4,", "1,1,-2,4,");
  EXPECT_FALSE(read_streamed_report(negative).has_value());
  EXPECT_EQ(error_of(negative), "threads[0].nodes[1].calls: not a whole number from 0 to 18446744073709551615");
  const std::string short_by_one = with(",1000000,1000000,0]", ",1000000,1000000]");
  EXPECT_FALSE(read_streamed_report(short_by_one).has_value());
  EXPECT_EQ(error_of(short_by_one), "threads[0].nodes: not 8 numbers per node");
  const std::string lone_surrogate = with("\"Worker\"", "\"W\\ud800\"");
  EXPECT_FALSE(read_streamed_report(lone_surrogate).has_value());
  EXPECT_EQ(error_of(lone_surrogate), "no error");
  // Read, but not here: the schema not first, a member twice (the general reader takes the first), the frames after
  // the threads.
  for (const std::string& text : {with(R"({"schema":"umbra-report/2","mode":"shadow",)",
                                       R"({"mode":"shadow","schema":"umbra-report/2",)"),
                                  with(R"("pid":42,)", R"("pid":42,"pid":41,)")}) {
    EXPECT_FALSE(read_streamed_report(text).has_value()) << text;
    EXPECT_EQ(error_of(text), "no error") << text;
  }
  std::string frames_last = kSmall;
  size_t frames = frames_last.find(R"("frames")"), threads = frames_last.find(R"("threads")");
  std::string frames_member = frames_last.substr(frames, threads - frames);
  frames_last.erase(frames, frames_member.size());
  frames_last.insert(frames_last.find(R"("stats")"), frames_member);
  EXPECT_FALSE(read_streamed_report(frames_last).has_value());
  EXPECT_EQ(report_to_json(load_report_from_text(frames_last)), report_to_json(*read_streamed_report(kSmall)));
  // umbra-report/1.
  EXPECT_FALSE(read_streamed_report(R"({"schema":"umbra-report/1","mode":"shadow","threads":[]})").has_value());
  EXPECT_EQ(error_of(R"({"schema":"umbra-report/1","mode":"shadow","threads":[]})"), "no error");
  // Text after the document, behind a NUL byte that RapidJSON takes for the end.
  const std::string after_nul = kSmall + std::string(1, '\0') + "x";
  EXPECT_FALSE(read_streamed_report(after_nul).has_value());
  EXPECT_EQ(error_of(after_nul), "unexpected text after the document");
}

// A command line with an argument that is not a string is left out, as the general reader leaves it out; the rest
// of the report is read.
TEST(ReportStreamReader, LeavesOutACommandLineWithAnArgumentThatIsNotAString) {
  for (const char* command_line : {R"(["dotnet",7])", R"(["dotnet",["App.dll"]])", R"(["dotnet",{"a":1}])"}) {
    std::string text = kSmall;
    text.replace(text.find(R"("runtime")"), 0, std::string(R"("command_line":)") + command_line + ",");
    std::optional<Report> streamed = read_streamed_report(text);
    ASSERT_TRUE(streamed.has_value()) << command_line;
    EXPECT_TRUE(streamed->command_line.empty()) << command_line;
    EXPECT_EQ(streamed->threads.size(), 1u);
    EXPECT_TRUE(load_report_from_text(text).command_line.empty()) << command_line;
  }
  std::string text = kSmall;
  text.replace(text.find(R"("runtime")"), 0, R"("command_line":["dotnet","App.dll"],)");
  std::optional<Report> streamed = read_streamed_report(text);
  ASSERT_TRUE(streamed.has_value());
  EXPECT_EQ(streamed->command_line, (std::vector<std::string>{"dotnet", "App.dll"}));
}

}  // namespace
}  // namespace umbra
