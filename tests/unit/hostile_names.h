// Names a profiled program can choose, and a check that output made from them cannot act on a terminal or split a
// line: shared by the tests of every writer that prints names.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace umbra::testing {

// A line feed, a carriage return, an OSC title, a clear-screen, U+2028, U+0085 (NEL), DEL and an 8-bit CSI (U+009B).
inline const std::string kHostileName =
    "a\nb\rc\x1b]0;pwned\x07"
    "d\x1b[2J"
    "e\xe2\x80\xa8"
    "f\xc2\x85"
    "g\x7f"
    "h\xc2\x9b"
    "i";

// Where `text` holds something other than printable UTF-8 and '\n', as "byte N: why"; empty when it holds none.
inline std::string first_unsafe(std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    auto b = uint8_t(text[i]);
    auto at = [&](const char* why) { return "byte " + std::to_string(i) + ": " + why; };
    if (b == '\n') continue;
    if (b < 0x20) return at("C0 control");
    if (b == 0x7f) return at("DEL");
    if (b < 0x80) continue;
    size_t n = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc2 ? 2 : 0;
    if (n == 0 || i + n > text.size()) return at("not UTF-8");
    for (size_t k = 1; k < n; ++k)
      if ((uint8_t(text[i + k]) & 0xc0) != 0x80) return at("not UTF-8");
    if (b == 0xc2 && uint8_t(text[i + 1]) < 0xa0) return at("C1 control");
    if (text.substr(i, 3) == "\xe2\x80\xa8" || text.substr(i, 3) == "\xe2\x80\xa9") return at("U+2028 or U+2029");
    i += n - 1;
  }
  return {};
}

}  // namespace umbra::testing
