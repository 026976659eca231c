// UTF-8 encoding, shared by the runtime's UTF-16 names and the JSON reader's \u escapes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace umbra {

// Appends one code point; lone surrogates and values beyond U+10FFFF become U+FFFD.
void append_utf8(std::string& out, uint32_t code_point);

// UTF-16 (the runtime's WCHAR) to UTF-8; unpaired surrogates become U+FFFD.
std::string utf16_to_utf8(std::u16string_view text);

}  // namespace umbra
