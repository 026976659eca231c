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

}  // namespace
}  // namespace umbra
