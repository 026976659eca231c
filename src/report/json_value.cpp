#include "report/json_value.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>

#include "util/decimal.h"

namespace umbra {

JsonValue::~JsonValue() {
  if (has_children()) release_children();
}

// Post-order, along last children, without recursion and without allocating: a destructor may run while a failed
// allocation unwinds (moving every child container onto a vector of pending ones, as this did, took memory for the
// width of the document, just when there was none). The path down to the container being emptied is kept for its
// deepest kPath levels; above them, an ancestor is found again from this value down, along the same last children:
// D levels cost D * D / kPath steps more (the reader's deepest, 262,000 levels, some 70 million).
void JsonValue::release_children() {
  constexpr size_t kPath = 1024;
  JsonValue* path[kPath];  // the ancestor at level L (this is level 0) in path[L % kPath], for L in [lowest, level)
  size_t level = 0, lowest = 0;
  JsonValue* top = this;
  for (;;) {
    JsonValue* last = top->last_child();
    if (last != nullptr && last->has_children()) {
      path[level % kPath] = top;
      ++level;
      if (level - lowest > kPath) lowest = level - kPath;
      top = last;
    } else if (last != nullptr) {
      top->drop_last_child();  // a scalar or an empty container: its destructor has nothing to empty
    } else {
      if (level == 0) return;
      --level;
      if (level >= lowest) {
        top = path[level % kPath];
      } else {
        lowest = level > kPath ? level - kPath : 0;
        top = this;
        for (size_t l = 0; l < level; ++l) {
          if (l >= lowest) path[l % kPath] = top;
          top = top->last_child();
        }
      }
      top->drop_last_child();  // the container just emptied
    }
  }
}

bool JsonValue::has_children() const {
  if (auto* a = std::get_if<Array>(&value_)) return !a->empty();
  if (auto* o = std::get_if<Object>(&value_)) return !o->empty();
  return false;
}

JsonValue* JsonValue::last_child() {
  if (auto* a = std::get_if<Array>(&value_)) return a->empty() ? nullptr : &a->back();
  if (auto* o = std::get_if<Object>(&value_)) return o->empty() ? nullptr : &o->back().second;
  return nullptr;
}

void JsonValue::drop_last_child() {
  if (auto* a = std::get_if<Array>(&value_)) a->pop_back();
  else std::get<Object>(value_).pop_back();
}

double JsonValue::as_double() const {
  if (auto* i = std::get_if<int64_t>(&value_)) return double(*i);
  if (auto* u = std::get_if<uint64_t>(&value_)) return double(*u);
  return std::get<double>(value_);
}

int64_t JsonValue::as_int() const {
  if (auto* i = std::get_if<int64_t>(&value_)) return *i;
  if (auto* u = std::get_if<uint64_t>(&value_)) return int64_t(*u);
  double d = std::get<double>(value_);
  if (std::isnan(d)) return 0;
  if (d <= -0x1p63) return INT64_MIN;
  if (d >= 0x1p63) return INT64_MAX;
  return int64_t(d);
}

uint64_t JsonValue::as_uint() const {
  if (auto* u = std::get_if<uint64_t>(&value_)) return *u;
  if (auto* i = std::get_if<int64_t>(&value_)) return uint64_t(*i);
  double d = std::get<double>(value_);
  if (!(d > 0)) return 0;
  if (d >= 0x1p64) return UINT64_MAX;
  return uint64_t(d);
}

std::optional<uint64_t> JsonValue::as_exact_uint() const {
  if (auto* u = std::get_if<uint64_t>(&value_)) return *u;
  if (auto* i = std::get_if<int64_t>(&value_)) return *i >= 0 ? std::optional<uint64_t>(uint64_t(*i)) : std::nullopt;
  if (auto* d = std::get_if<double>(&value_); d && *d >= 0 && *d < 0x1p64 && std::trunc(*d) == *d) return uint64_t(*d);
  return std::nullopt;
}

const JsonValue* JsonValue::find(std::string_view key) const {
  if (!is_object()) return nullptr;
  for (const auto& [k, v] : as_object())
    if (k == key) return &v;
  return nullptr;
}

JsonValue& JsonValue::set(std::string key, JsonValue value) {
  for (auto& [k, v] : as_object()) {
    if (k == key) {
      v = std::move(value);
      return v;
    }
  }
  as_object().emplace_back(std::move(key), std::move(value));
  return as_object().back().second;
}

bool JsonValue::operator==(const JsonValue& other) const { return value_ == other.value_; }

void append_json_string(std::string& out, std::string_view text) {
  out += '"';
  for (unsigned char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += char(c);
        }
    }
  }
  out += '"';
}

std::string JsonValue::dump(int indent) const {
  std::string out;
  dump_to(out, indent, 0);
  return out;
}

void JsonValue::dump_to(std::string& out, int indent, int level) const {
  auto newline = [&](int lvl) {
    if (indent < 0) return;
    out += '\n';
    out.append(size_t(indent * lvl), ' ');
  };
  char buf[32];
  if (is_null()) {
    out += "null";
  } else if (auto* b = std::get_if<bool>(&value_)) {
    out += *b ? "true" : "false";
  } else if (auto* i = std::get_if<int64_t>(&value_)) {
    append_decimal(out, *i);
  } else if (auto* u = std::get_if<uint64_t>(&value_)) {
    append_decimal(out, *u);
  } else if (auto* d = std::get_if<double>(&value_)) {
    if (std::isfinite(*d)) {
      std::snprintf(buf, sizeof buf, "%.17g", *d);
      out += buf;
    } else {
      out += "null";
    }
  } else if (auto* s = std::get_if<std::string>(&value_)) {
    append_json_string(out, *s);
  } else if (auto* a = std::get_if<Array>(&value_)) {
    out += '[';
    for (size_t k = 0; k < a->size(); ++k) {
      if (k) out += ',';
      newline(level + 1);
      (*a)[k].dump_to(out, indent, level + 1);
    }
    if (!a->empty()) newline(level);
    out += ']';
  } else if (auto* o = std::get_if<Object>(&value_)) {
    out += '{';
    for (size_t k = 0; k < o->size(); ++k) {
      if (k) out += ',';
      newline(level + 1);
      append_json_string(out, (*o)[k].first);
      out += indent < 0 ? ":" : ": ";
      (*o)[k].second.dump_to(out, indent, level + 1);
    }
    if (!o->empty()) newline(level);
    out += '}';
  }
}

}  // namespace umbra
