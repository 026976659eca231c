#include "report/report_reader.h"

#include <gtest/gtest.h>

#include <string>

#include "report/json_parser.h"
#include "report/json_writer.h"
#include "report_fixture.h"

namespace umbra {
namespace {

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
