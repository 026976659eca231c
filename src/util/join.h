// Joins strings with a separator: lists of files and values in umbra's one-line messages.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace umbra {

inline std::string join(const std::vector<std::string>& items, std::string_view separator = ", ") {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += separator;
    out += items[i];
  }
  return out;
}

}  // namespace umbra
