#include "report/output_files.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "report/report_tree.h"
#include "report_fixture.h"
#include "scoped_env.h"
#include "util/large_stack.h"

namespace umbra {
namespace {

struct Written {
  std::vector<std::string> paths;
  std::vector<std::string> warnings;
  std::map<std::string, std::string> contents;  // by extension
};

Written write_all(Report report, const std::vector<std::string>& formats, SharedWork* work = nullptr) {
  char dir[] = "/tmp/umbra-output-files-XXXXXX";
  EXPECT_NE(mkdtemp(dir), nullptr);
  Written w;
  OutputRequest request{std::string(dir) + "/r", formats, 0.5, 0, {}, work};
  w.paths = write_report_files(report, request, [&](const std::string& line) { w.warnings.push_back(line); });
  for (const auto& path : w.paths) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    w.contents[path.substr(path.find('.'))] = text.str();
  }
  std::filesystem::remove_all(dir);
  return w;
}

// A sampled thread that starts in the host and waits in the runtime, as the sampler names its frames.
Report report_with_runtime_frames() {
  auto frame = [](const char* name, const char* module, const char* kind, std::vector<ReportNode> children) {
    ReportNode n;
    n.frame = intern_frame(name, module, kind);
    n.children = std::move(children);
    return n;
  };
  ReportNode wait = frame("pthread_cond_wait", "libc.so.6", "native", {});
  wait.self_samples = 5;
  ReportNode root = frame("__libc_start_main", "libc.so.6", "native", {frame("libcoreclr.so+0x10", "libcoreclr.so",
      "native", {frame("App.Program.Main", "App.dll", "managed", {frame("libcoreclr.so+0x20", "libcoreclr.so",
      "native", {frame("libcoreclr.so+0x30", "libcoreclr.so", "native", {wait})})})})});
  finish_totals(root);
  Report r;
  r.mode = "sampled";
  r.threads.emplace_back().roots.push_back(std::move(root));
  return r;
}

TEST(OutputFiles, SaysWhatADeepReportLeftOut) {
  run_on_large_stack([&] {
    Report r = testing::deep_chain(8000);
    Written w = write_all(r, {"text", "collapsed", "speedscope", "pprof"});
    r.threads.clear();  // destroyed here: destruction recurses as deep as the tree
    EXPECT_EQ(w.paths.size(), 4u);
    const std::string merged = " report keeps the first 1024 frames of each stack; 6976 deeper stacks were merged "
                               "under '[deeper frames not shown]'";
    EXPECT_EQ(w.warnings,
              (std::vector<std::string>{"the collapsed" + merged, "the speedscope" + merged, "the pprof" + merged}));
  });
}

// With helpers, the JSON file is written beside the folding and the other formats: the same files, listed in the
// same order, the runtime's frames kept in the JSON and folded in the text.
TEST(OutputFiles, HelpersWriteTheSameFilesInTheSameOrder) {
  Written alone = write_all(report_with_runtime_frames(), {"text", "json", "collapsed"});
  SharedWork work(1);
  Written shared = write_all(report_with_runtime_frames(), {"text", "json", "collapsed"}, &work);
  ASSERT_EQ(shared.paths.size(), 3u);
  for (size_t i = 0; i < 3; ++i)
    EXPECT_EQ(shared.paths[i].substr(shared.paths[i].find('.')), alone.paths[i].substr(alone.paths[i].find('.')));
  EXPECT_EQ(shared.contents, alone.contents);
  EXPECT_TRUE(shared.warnings.empty());
}

// A JSON file its helper could not write goes where one thread's would: to the fallback directory, said once,
// still first in the list.
TEST(OutputFiles, WithHelpersAnUnwritableJsonFileFallsBackLikeAnyOther) {
  char tmp[] = "/tmp/umbra-output-fallback-XXXXXX";
  ASSERT_NE(mkdtemp(tmp), nullptr);
  std::vector<std::string> warnings, paths;
  {
    testing::ScopedEnv fallback_in_scratch("TMPDIR", tmp);
    SharedWork work(1);
    Report report = report_with_runtime_frames();
    OutputRequest request{"/nonexistent-umbra-dir/r", {"json", "text"}, 0.5, 4242, {}, &work};
    paths = write_report_files(report, request, [&](const std::string& line) { warnings.push_back(line); });
  }
  ASSERT_EQ(paths.size(), 2u);
  EXPECT_EQ(paths[0].substr(paths[0].size() - 5), ".json");
  EXPECT_EQ(paths[0].rfind(tmp, 0), 0u) << paths[0];
  EXPECT_TRUE(std::filesystem::file_size(paths[0]) > 0);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_NE(warnings[0].find("cannot write '/nonexistent-umbra-dir/r.json'"), std::string::npos) << warnings[0];
  std::filesystem::remove_all(tmp);
}

// The launcher lists report files by these (tools/launcher/report_files.cpp); pprof's tools expect .pb.gz.
TEST(OutputFiles, EachFormatHasItsExtension) {
  EXPECT_EQ(format_extension("json"), ".json");
  EXPECT_EQ(format_extension("text"), ".txt");
  EXPECT_EQ(format_extension("collapsed"), ".collapsed");
  EXPECT_EQ(format_extension("speedscope"), ".speedscope.json");
  EXPECT_EQ(format_extension("html"), ".html");
  EXPECT_EQ(format_extension("pprof"), ".pb.gz");
}

TEST(OutputFiles, AnOrdinaryReportWarnsOfNothing) {
  Written w = write_all(testing::known_report(), {"json", "text", "collapsed", "speedscope", "html", "pprof"});
  EXPECT_EQ(w.paths.size(), 6u);
  EXPECT_EQ(w.warnings, std::vector<std::string>{});
}

// The JSON report keeps every frame, written first whatever the order asked; the others fold the runtime's frames,
// unless the report says to keep them.
TEST(OutputFiles, OnlyTheJsonReportKeepsTheRuntimesFramesByDefault) {
  Written folded = write_all(report_with_runtime_frames(), {"collapsed", "json"});
  ASSERT_EQ(folded.paths.size(), 2u);
  EXPECT_NE(folded.paths[0].find(".json"), std::string::npos);
  EXPECT_EQ(folded.contents[".collapsed"], "[native start-up];App.Program.Main;[libcoreclr.so];pthread_cond_wait 5\n");
  EXPECT_NE(folded.contents[".json"].find("\"libcoreclr.so+0x30\""), std::string::npos);
  EXPECT_NE(folded.contents[".json"].find("\"runtime_frames\":\"fold\""), std::string::npos);

  Report keep = report_with_runtime_frames();
  keep.runtime_frames = RuntimeFrames::kKeep;
  Written kept = write_all(std::move(keep), {"json", "collapsed"});
  EXPECT_EQ(kept.contents[".collapsed"],
            "__libc_start_main;libcoreclr.so+0x10;App.Program.Main;libcoreclr.so+0x20;libcoreclr.so+0x30;"
            "pthread_cond_wait 5\n");
  EXPECT_NE(kept.contents[".json"].find("\"runtime_frames\":\"keep\""), std::string::npos);
}

}  // namespace
}  // namespace umbra
