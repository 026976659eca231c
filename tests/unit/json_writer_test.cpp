#include "report/json_writer.h"

#include <gtest/gtest.h>

#include "report/json_parser.h"
#include "report_fixture.h"

namespace umbra {
namespace {

TEST(JsonWriter, WritesTheSchemaFieldsExactly) {
  JsonValue doc = parse_json(report_to_json(testing::known_report()));
  EXPECT_EQ(doc.find("schema")->as_string(), "umbra-report/1");
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
  const JsonValue& main = threads[0].find("roots")->as_array()[0];
  for (const char* field : {"name", "kind", "module", "calls", "samples", "self_samples", "total_ns", "self_ns",
                            "children"})
    EXPECT_NE(main.find(field), nullptr) << field;
  EXPECT_EQ(main.find("kind")->as_string(), "managed");
  EXPECT_EQ(main.find("calls")->as_uint(), 1u);
  const JsonValue& hot = main.find("children")->as_array()[0];
  EXPECT_EQ(hot.find("name")->as_string(), "App.Program.Hot");
  EXPECT_EQ(hot.find("calls")->as_uint(), 10u);
  EXPECT_EQ(hot.find("total_ns")->as_uint(), 899'000'000u);
  EXPECT_EQ(doc.find("stats")->find("drops")->find("stack_overflow")->as_uint(), 2u);
}

TEST(JsonWriter, UnmeasuredCountersAreNull) {
  Report r = testing::known_report();
  r.threads[0].roots[0].calls.reset();
  r.threads[0].roots[0].total_ns.reset();
  JsonValue doc = parse_json(report_to_json(r));
  const JsonValue& main = doc.find("threads")->as_array()[0].find("roots")->as_array()[0];
  EXPECT_TRUE(main.find("calls")->is_null());
  EXPECT_TRUE(main.find("total_ns")->is_null());
}

}  // namespace
}  // namespace umbra
