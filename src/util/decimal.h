// Appends an integer in decimal: reports write millions of numbers, and std::to_chars is several times faster
// than printf's formatting.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>

namespace umbra {

template <typename Integer>
inline void append_decimal(std::string& out, Integer value) {
  char buf[24];
  auto [end, error] = std::to_chars(buf, buf + sizeof buf, value);
  out.append(buf, end);
}

}  // namespace umbra
