// UTF-8 encoding, shared by the runtime's UTF-16 names and the JSON reader's \u escapes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace umbra {

// Appends one code point; lone surrogates and values beyond U+10FFFF become U+FFFD.
void append_utf8(std::string& out, uint32_t code_point);

// UTF-16 (the runtime's WCHAR) to UTF-8; unpaired surrogates become U+FFFD.
std::string utf16_to_utf8(std::u16string_view text);

// The length of the well-formed UTF-8 sequence at text[at] (Unicode 15, table 3-7), and its code point; 0 if there
// is none (a stray continuation byte, an overlong form, a surrogate, beyond U+10FFFF, or cut short).
size_t decode_utf8(std::string_view text, size_t at, uint32_t& code_point);

// UTF-8 to UTF-16; nothing if `text` is not well-formed UTF-8 (a path the runtime would then not find).
std::optional<std::u16string> utf8_to_utf16(std::string_view text);

}  // namespace umbra
