#include "report/report_header.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "report/json_writer.h"
#include "report_fixture.h"

namespace umbra {
namespace {

class ReportHeaderTest : public ::testing::Test {
 protected:
  std::string write(const std::string& text) {
    std::ofstream(path_, std::ios::binary) << text;
    return path_;
  }
  void TearDown() override { ::unlink(path_.c_str()); }

 private:
  std::string path_ = ::testing::TempDir() + "report_header_" + std::to_string(::getpid()) + ".json";
};

TEST_F(ReportHeaderTest, ReadsWhatTheWriterWroteOfTheProcess) {
  std::optional<ReportHeader> header = read_report_header(write(report_to_json(testing::known_named_report())));
  ASSERT_TRUE(header.has_value());
  EXPECT_EQ(header->pid, 42);
  EXPECT_EQ(header->program, "MSBuild.dll");
  EXPECT_EQ(header->command_line,
            (std::vector<std::string>{"/usr/share/dotnet/dotnet", "/sdk/MSBuild.dll", "-nodemode:1", "two words",
                                      "it's"}));
  EXPECT_EQ(header->runtime, "10.0.0");
  EXPECT_EQ(header->umbra_version, "0.1.0");
}

// The rest of the file is never read: a report cut short, or damaged, after its header still names its process.
TEST_F(ReportHeaderTest, StopsAtTheFirstLargeMember) {
  std::string json = report_to_json(testing::known_named_report());
  std::string damaged = json.substr(0, json.find("\"node_fields\"") + 14) + "][}{ not JSON";
  std::optional<ReportHeader> header = read_report_header(write(damaged));
  ASSERT_TRUE(header.has_value());
  EXPECT_EQ(header->program, "MSBuild.dll");
}

TEST_F(ReportHeaderTest, NothingForWhatIsNoReport) {
  EXPECT_FALSE(read_report_header("/nonexistent/r.json").has_value());
  EXPECT_FALSE(read_report_header(write(R"({"program":"x.dll","schema":"umbra-report/2"})")).has_value());
  EXPECT_FALSE(read_report_header(write(R"({"schema":"speedscope","program":"x.dll"})")).has_value());
  EXPECT_FALSE(read_report_header(write("")).has_value());
  // An older report, with nothing to say of its process, is still a report.
  std::optional<ReportHeader> old = read_report_header(write(R"({"schema":"umbra-report/1","pid":7,"threads":[]})"));
  ASSERT_TRUE(old.has_value());
  EXPECT_EQ(old->pid, 7);
  EXPECT_EQ(old->program, "");
  for (const char* schema : {"umbra-report/2", "umbra-report/3", "umbra-report/4"})
    EXPECT_TRUE(read_report_header(write(std::string(R"({"schema":")") + schema + R"(","pid":7})")).has_value());
  EXPECT_FALSE(read_report_header(write(R"({"schema":"umbra-report/5","pid":7})")).has_value());
}

}  // namespace
}  // namespace umbra
