#include "report/display_text.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "util/utf8.h"

namespace umbra {
namespace {

constexpr std::string_view kEllipsis = "\xe2\x80\xa6";     // U+2026
constexpr std::string_view kReplacement = "\xef\xbf\xbd";  // U+FFFD

bool needs_escape(uint32_t c) {
  return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x200e || c == 0x200f || (c >= 0x2028 && c <= 0x202e) ||
         (c >= 0x2066 && c <= 0x2069);
}

void append_escape(std::string& out, uint32_t c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, c < 0x80 ? "\\x%02x" : "\\u%04x", unsigned(c));
  out += buf;
}

}  // namespace

std::string display_text(std::string_view text, size_t max_bytes) {
  const size_t room = max_bytes >= kEllipsis.size() ? max_bytes - kEllipsis.size() : 0;
  std::string out;
  out.reserve(std::min(text.size(), max_bytes));
  size_t fits = 0;  // the longest output so far, cut between pieces, that leaves room for the ellipsis
  for (size_t at = 0; at < text.size();) {
    if (out.size() <= room) fits = out.size();
    uint32_t c = 0;
    size_t length = decode_utf8(text, at, c);
    if (length == 0) {
      out += kReplacement;
      length = 1;
    } else if (needs_escape(c)) {
      append_escape(out, c);
    } else {
      out.append(text.substr(at, length));
    }
    at += length;
    if (out.size() > max_bytes) {
      out.resize(fits);
      out += kEllipsis;
      return out;
    }
  }
  return out;
}

std::string display_command_line(const std::vector<std::string>& args, size_t max_bytes) {
  std::string line;
  for (const std::string& arg : args) {
    if (!line.empty()) line += ' ';
    bool plain = !arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                       "0123456789-_./=:,+@%") == std::string::npos;
    if (plain) {
      line += arg;
      continue;
    }
    line += '\'';
    for (char c : arg) {
      if (c == '\'') line += "'\\''";  // ends the quote, an escaped quote, quotes again
      else line += c;
    }
    line += '\'';
  }
  return display_text(line, max_bytes);
}

}  // namespace umbra
