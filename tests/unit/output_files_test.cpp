#include "report/output_files.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "report_fixture.h"
#include "util/large_stack.h"

namespace umbra {
namespace {

struct Written {
  std::vector<std::string> paths;
  std::vector<std::string> warnings;
};

Written write_all(const Report& report, const std::vector<std::string>& formats) {
  char dir[] = "/tmp/umbra-output-files-XXXXXX";
  EXPECT_NE(mkdtemp(dir), nullptr);
  Written w;
  OutputRequest request{std::string(dir) + "/r", formats, 0.5, 0, {}};
  w.paths = write_report_files(report, request, [&](const std::string& line) { w.warnings.push_back(line); });
  std::filesystem::remove_all(dir);
  return w;
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

}  // namespace
}  // namespace umbra
