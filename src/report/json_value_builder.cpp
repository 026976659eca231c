#include "report/json_value_builder.h"

#include <utility>

namespace umbra {

void JsonValueBuilder::open(bool object) { open_.push_back({object ? JsonValue::object() : JsonValue::array(), {}}); }

void JsonValueBuilder::key(std::string_view name) { open_.back().key.assign(name); }

void JsonValueBuilder::value(JsonValue v) {
  if (open_.empty()) done_ = std::move(v);
  else add(std::move(v));
}

bool JsonValueBuilder::close() {
  JsonValue closed = std::move(open_.back().container);
  open_.pop_back();
  if (open_.empty()) {
    done_ = std::move(closed);
    return true;
  }
  add(std::move(closed));
  return false;
}

void JsonValueBuilder::add(JsonValue v) {
  Open& top = open_.back();
  if (top.container.is_object()) top.container.as_object().emplace_back(std::move(top.key), std::move(v));
  else top.container.push(std::move(v));
}

}  // namespace umbra
