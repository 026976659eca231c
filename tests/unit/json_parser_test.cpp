#include "report/json_parser.h"

#include <gtest/gtest.h>

#include "address_space_limit.h"
#include "report/json_writer.h"

namespace umbra {
namespace {

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

// A document is destroyed while a failed allocation unwinds, when there is no memory to spare: destroying one takes
// none, however wide (a million containers side by side) or deep (two thousand levels, more than the path it keeps).
TEST(JsonParser, DestroyingADocumentTakesNoMemory) {
  if (!testing::kAddressSpaceLimitWorks) GTEST_SKIP() << "no address-space limit under ASan or TSan";
  std::string text = "[";
  for (int i = 0; i < 1000000; ++i) text += "[],";
  text += std::string(2000, '[') + std::string(2000, ']') + "]";
  JsonValue wide = parse_json(text);
  std::string().swap(text);
  // The child's copy of the document, destroyed under a limit of what is mapped and 64 KiB.
  int status = testing::run_under_address_space_limit(size_t(64) << 10, [&] {
    JsonValue gone = std::move(wide);
    return 0;
  });
  EXPECT_EQ(status, 0) << "128 + SIGABRT: an allocation failed in a destructor";
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
