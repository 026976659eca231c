#include "report/display_text.h"

#include <gtest/gtest.h>

#include "hostile_names.h"

namespace umbra {
namespace {

TEST(DisplayText, OrdinaryNamesAreUnchanged) {
  for (const char* name : {"App.Program.Main", "System.Collections.Generic.List`1[System.Int32].Add(!0)",
                           "Main \"thread\"", "Grüße.Größe", "日本語.メソッド", "C:\\path\\x1b", ""})
    EXPECT_EQ(display_text(name), name);
}

TEST(DisplayText, ControlsAndLineBreaksBecomeVisibleEscapes) {
  EXPECT_EQ(display_text(testing::kHostileName),
            "a\\x0ab\\x0dc\\x1b]0;pwned\\x07d\\x1b[2Je\\u2028f\\u0085g\\x7fh\\u009bi");
  EXPECT_EQ(display_text(std::string("\0\t\x1f", 3)), "\\x00\\x09\\x1f");
  EXPECT_EQ(display_text("\xc2\x80\xc2\x9f\xc2\xa0"), "\\u0080\\u009f\xc2\xa0");  // NBSP is printable
  EXPECT_EQ(display_text("\xe2\x80\xa9"), "\\u2029");
  EXPECT_EQ(display_text("abc\xe2\x80\xae" "dcba"), "abc\\u202edcba");  // right-to-left override
  EXPECT_EQ(testing::first_unsafe(display_text(testing::kHostileName)), "");
}

// Arguments a shell would split or expand are single-quoted, so the line reads as the command it was; then escaped
// as any name.
TEST(DisplayText, CommandLinesQuoteWhatAShellWouldSplit) {
  EXPECT_EQ(display_command_line({"dotnet", "/sdk/MSBuild.dll", "-nodemode:1", "-p:A=b,c"}),
            "dotnet /sdk/MSBuild.dll -nodemode:1 -p:A=b,c");
  EXPECT_EQ(display_command_line({"app", "two words", "", "$HOME", "it's"}), "app 'two words' '' '$HOME' 'it'\\''s'");
  EXPECT_EQ(display_command_line({"app", "a\nb"}), "app 'a\\x0ab'");
  EXPECT_EQ(display_command_line({}), "");
}

TEST(DisplayText, MalformedUtf8BecomesReplacementCharacters) {
  const std::string fffd = "\xef\xbf\xbd";
  EXPECT_EQ(display_text("a\x80z"), "a" + fffd + "z");                        // a stray continuation byte
  EXPECT_EQ(display_text("\xc0\xaf"), fffd + fffd);                          // an overlong '/'
  EXPECT_EQ(display_text("\xed\xa0\x80"), fffd + fffd + fffd);               // a surrogate
  EXPECT_EQ(display_text("\xf4\x90\x80\x80"), fffd + fffd + fffd + fffd);    // beyond U+10FFFF
  EXPECT_EQ(display_text("x\xe2\x80"), "x" + fffd + fffd);                   // cut short
  EXPECT_EQ(display_text("\xf0\x9f\x94\xa5"), "\xf0\x9f\x94\xa5");           // U+1F525 is fine
  EXPECT_EQ(display_text("\x9b[2J"), fffd + "[2J");                          // an 8-bit CSI alone
}

TEST(DisplayText, LongTextIsCutAtACharacterWithAnEllipsis) {
  const std::string ellipsis = "\xe2\x80\xa6";
  EXPECT_EQ(display_text(std::string(1000, 'x')), std::string(1000, 'x'));  // fits exactly
  std::string cut = display_text(std::string(5000, 'x'));
  EXPECT_EQ(cut, std::string(997, 'x') + ellipsis);
  EXPECT_EQ(cut.size(), kMaxDisplayBytes);
  // Never inside a character or an escape.
  EXPECT_EQ(display_text("ab\xc3\xa9\xc3\xa9\xc3\xa9", 7), "ab\xc3\xa9" + ellipsis);
  EXPECT_EQ(display_text("ab\x1b\x1b", 8), "ab" + ellipsis);
  EXPECT_EQ(display_text("ab\x1b", 6), "ab\\x1b");
}

}  // namespace
}  // namespace umbra
