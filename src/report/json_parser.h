// Parses JSON text into a JsonValue. Iterative (an explicit stack), so nesting depth is bounded by memory and
// `max_depth`, never by the C++ call stack. Errors carry the byte offset, line and column.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

#include "report/json_value.h"

namespace umbra {

class JsonParseError : public std::runtime_error {
 public:
  JsonParseError(const std::string& message, size_t offset, size_t line, size_t column)
      : std::runtime_error(message), offset(offset), line(line), column(column) {}
  size_t offset, line, column;
};

JsonValue parse_json(std::string_view text, size_t max_depth = 1u << 20);

}  // namespace umbra
