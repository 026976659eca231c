// A small JSON document model: what the reader parses, and the report's stats as they are written.
// Objects keep their keys in insertion order so that written files are stable and diffable.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace umbra {

class JsonValue {
 public:
  using Array = std::vector<JsonValue>;
  using Object = std::vector<std::pair<std::string, JsonValue>>;

  JsonValue() : value_(nullptr) {}
  JsonValue(std::nullptr_t) : value_(nullptr) {}
  JsonValue(bool b) : value_(b) {}
  JsonValue(int v) : value_(int64_t(v)) {}
  JsonValue(int64_t v) : value_(v) {}
  JsonValue(uint64_t v) : value_(v) {}
  JsonValue(double v) : value_(v) {}
  JsonValue(const char* s) : value_(std::string(s)) {}
  JsonValue(std::string s) : value_(std::move(s)) {}
  JsonValue(Array a) : value_(std::move(a)) {}
  JsonValue(Object o) : value_(std::move(o)) {}

  // Destruction is iterative: a hostile document nested a million deep must not exhaust the call stack. It allocates
  // nothing, so it cannot fail while a std::bad_alloc unwinds.
  ~JsonValue();
  JsonValue(const JsonValue&) = default;
  JsonValue(JsonValue&&) noexcept = default;
  JsonValue& operator=(const JsonValue&) = default;
  JsonValue& operator=(JsonValue&&) noexcept = default;

  static JsonValue object() { return JsonValue(Object{}); }
  static JsonValue array() { return JsonValue(Array{}); }

  bool is_null() const { return std::holds_alternative<std::nullptr_t>(value_); }
  bool is_bool() const { return std::holds_alternative<bool>(value_); }
  bool is_number() const {
    return std::holds_alternative<int64_t>(value_) || std::holds_alternative<uint64_t>(value_) ||
           std::holds_alternative<double>(value_);
  }
  bool is_string() const { return std::holds_alternative<std::string>(value_); }
  bool is_array() const { return std::holds_alternative<Array>(value_); }
  bool is_object() const { return std::holds_alternative<Object>(value_); }

  bool as_bool() const { return std::get<bool>(value_); }
  double as_double() const;
  // Doubles out of range (1e400 parses as infinity) saturate: converting them as they are is undefined.
  int64_t as_int() const;
  uint64_t as_uint() const;
  // The number if it is a whole number from 0 to 2^64-1, exactly; nothing for -1, 2.5, 1e400 or a non-number.
  std::optional<uint64_t> as_exact_uint() const;
  const std::string& as_string() const { return std::get<std::string>(value_); }
  const Array& as_array() const { return std::get<Array>(value_); }
  Array& as_array() { return std::get<Array>(value_); }
  const Object& as_object() const { return std::get<Object>(value_); }
  Object& as_object() { return std::get<Object>(value_); }

  // Object access: find() returns nullptr when absent (or not an object); set() replaces or appends.
  const JsonValue* find(std::string_view key) const;
  JsonValue& set(std::string key, JsonValue value);
  void push(JsonValue value) { as_array().push_back(std::move(value)); }

  // Compares whole documents, recursively: for those of a bounded depth (stats, tests).
  bool operator==(const JsonValue& other) const;

  // Serializes compactly (indent < 0) or pretty-printed with `indent` spaces per level.
  std::string dump(int indent = -1) const;

 private:
  void dump_to(std::string& out, int indent, int level) const;
  // For the destructor: none of them allocates.
  void release_children();
  bool has_children() const;
  JsonValue* last_child();  // nullptr when none
  void drop_last_child();
  std::variant<std::nullptr_t, bool, int64_t, uint64_t, double, std::string, Array, Object> value_;
};

// Appends `text` to `out` as a quoted JSON string.
void append_json_string(std::string& out, std::string_view text);

}  // namespace umbra
