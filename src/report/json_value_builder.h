// Builds a JsonValue from a parser's events, for the parts of a streamed document that are kept whole (a report's
// "stats"). Iterative: the open containers are on the heap, not the call stack.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "report/json_value.h"

namespace umbra {

class JsonValueBuilder {
 public:
  void open(bool object);
  // An object member's name: the next value or container is that member.
  void key(std::string_view name);
  void value(JsonValue v);
  // Closes the innermost open container; true when it was the outermost, which take() then returns.
  bool close();
  JsonValue take() { return std::move(done_); }

 private:
  void add(JsonValue v);

  struct Open {
    JsonValue container;
    std::string key;  // objects: the name of the member being read
  };
  std::vector<Open> open_;
  JsonValue done_;
};

}  // namespace umbra
