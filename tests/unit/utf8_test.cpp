#include "util/utf8.h"

#include <gtest/gtest.h>

namespace umbra {
namespace {

TEST(Utf8, FromUtf16) {
  EXPECT_EQ(utf16_to_utf8(u"abc"), "abc");
  EXPECT_EQ(utf16_to_utf8(u"\u00e9\u4e2d"), "\xc3\xa9\xe4\xb8\xad");
  EXPECT_EQ(utf16_to_utf8(u"\U0001F600"), "\xf0\x9f\x98\x80");
  EXPECT_EQ(utf16_to_utf8(std::u16string(1, char16_t(0xD800))), "\xef\xbf\xbd");
}

TEST(Utf8, ToUtf16) {
  EXPECT_EQ(utf8_to_utf16("abc"), u"abc");
  EXPECT_EQ(utf8_to_utf16("\xc3\xa9\xe4\xb8\xad"), u"\u00e9\u4e2d");
  EXPECT_EQ(utf8_to_utf16("\xf0\x9f\x98\x80"), u"\U0001F600");  // a surrogate pair
  EXPECT_EQ(utf8_to_utf16(""), u"");
  // Not UTF-8: a lone continuation byte, an overlong '/', an encoded surrogate, a sequence cut short.
  for (const char* bad : {"a\x80", "\xc0\xaf", "\xed\xa0\x80", "\xe4\xb8"}) EXPECT_FALSE(utf8_to_utf16(bad)) << bad;
}

}  // namespace
}  // namespace umbra
