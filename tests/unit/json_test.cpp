#include <gtest/gtest.h>

#include "report/json_parser.h"
#include "report/json_writer.h"
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

TEST(JsonParser, RoundTripsValues) {
  JsonValue v = parse_json(R"({"a":[1,-2,3.5,true,false,null,"x\n\u00e9\ud83d\ude00"],"b":{},"c":[],"":0})");
  EXPECT_EQ(v.find("a")->as_array()[0].as_uint(), 1u);
  EXPECT_EQ(v.find("a")->as_array()[1].as_int(), -2);
  EXPECT_DOUBLE_EQ(v.find("a")->as_array()[2].as_double(), 3.5);
  EXPECT_EQ(v.find("a")->as_array()[6].as_string(), "x\n\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_TRUE(v.find("b")->is_object());
  EXPECT_TRUE(v.find("c")->as_array().empty());
  EXPECT_EQ(v.find("")->as_uint(), 0u);
  EXPECT_EQ(parse_json(v.dump()).dump(), v.dump());
  EXPECT_EQ(parse_json(v.dump(2)).dump(), v.dump());
}

TEST(JsonParser, AHighSurrogateWithoutItsPairKeepsTheNextEscape) {
  EXPECT_EQ(parse_json(R"("\ud800\u0041")").as_string(), "\xef\xbf\xbd" "A");
}

TEST(JsonParser, NumbersDoNotDependOnTheLocale) {
  EXPECT_DOUBLE_EQ(parse_json("[2.5e3]").as_array()[0].as_double(), 2500.0);
  EXPECT_EQ(parse_json("[18446744073709551615]").as_array()[0].as_uint(), 18446744073709551615u);
  EXPECT_EQ(parse_json("[-9223372036854775808]").as_array()[0].as_int(), INT64_MIN);
}

TEST(JsonParser, DeepNestingNeedsNoCallStack) {
  std::string deep(200000, '[');
  deep += std::string(200000, ']');
  JsonValue v = parse_json(deep);
  EXPECT_TRUE(v.is_array());
}

TEST(JsonParser, ErrorsSayWhere) {
  struct Case {
    const char* text;
    size_t line, column;
  } cases[] = {{"", 1, 1}, {"{\"a\":1,", 1, 8}, {"[1,2", 1, 5}, {"{\"a\" 1}", 1, 6}, {"\n  [1,]", 2, 6},
               {"\"abc", 1, 5}, {"[1] x", 1, 5}, {"{\"a\":tru}", 1, 6}, {"-", 1, 1}};
  for (const auto& c : cases) {
    try {
      parse_json(c.text);
      ADD_FAILURE() << "parsed: " << c.text;
    } catch (const JsonParseError& e) {
      EXPECT_EQ(e.line, c.line) << c.text << ": " << e.what();
      EXPECT_EQ(e.column, c.column) << c.text << ": " << e.what();
    }
  }
}

TEST(JsonParser, NestingLimitIsEnforced) {
  EXPECT_THROW(parse_json("[[[[1]]]]", 3), JsonParseError);
  EXPECT_NO_THROW(parse_json("[[[1]]]", 3));
}

}  // namespace
}  // namespace umbra
