// Makes a name from the profiled program (a method, module or thread: any bytes) safe to print on one line of a
// terminal or a text file. Escaped, so that it reads as text and cannot end the line or drive the terminal:
//   C0 controls and DEL        -> \xNN   ("\n" -> "\x0a", ESC -> "\x1b")
//   C1 controls U+0080-U+009F  -> \uNNNN ("\u0085", "\u009b")
//   U+2028, U+2029             -> \u2028, \u2029 (line breaks to JavaScript)
//   bidi overrides and isolates (U+200E-200F, U+202A-202E, U+2066-2069) -> \uNNNN (they reorder what is shown)
// A byte that is not part of well-formed UTF-8 becomes U+FFFD. A backslash stays as it is: the form is for reading,
// not for decoding back. Everything else, other scripts included, is kept.
// The result is at most `max_bytes` long (3 or more): a longer one is cut between characters (never inside an
// escape) and ends in "…". Pure function: allocates, safe from any thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace umbra {

inline constexpr size_t kMaxDisplayBytes = 1000;

std::string display_text(std::string_view text, size_t max_bytes = kMaxDisplayBytes);

// A process's arguments on one line, as a shell would take them back: an argument holding a space, a quote or
// another character a shell treats specially is single-quoted; then display_text() of the whole.
std::string display_command_line(const std::vector<std::string>& args, size_t max_bytes = kMaxDisplayBytes);

}  // namespace umbra
