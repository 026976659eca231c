#include "report/report_stats_json.h"

#include <type_traits>
#include <utility>

namespace umbra {
namespace {

JsonValue to_json(uint64_t v) { return v; }
JsonValue to_json(bool v) { return v; }
JsonValue to_json(const std::string& v) { return v; }

JsonValue to_json(const NamedCounts& counts) {
  JsonValue o = JsonValue::object();
  for (const auto& c : counts) o.as_object().emplace_back(c.name, c.count);
  return o;
}

// ReportStats and its groups.
template <typename Group>
JsonValue to_json(const Group& group) {
  JsonValue o = JsonValue::object();
  Group::for_each_field(group, [&](const char* key, const auto& field) {
    if (field) o.as_object().emplace_back(key, to_json(*field));
  });
  for (const auto& member : group.unread) o.as_object().push_back(member);
  return o;
}

// Each returns false, leaving `out` as it was, for a value of another type.
bool from_json(const JsonValue& v, uint64_t& out) {
  std::optional<uint64_t> n = v.as_exact_uint();
  if (n) out = *n;
  return n.has_value();
}

bool from_json(const JsonValue& v, bool& out) {
  if (v.is_bool()) out = v.as_bool();
  return v.is_bool();
}

bool from_json(const JsonValue& v, std::string& out) {
  if (v.is_string()) out = v.as_string();
  return v.is_string();
}

bool from_json(const JsonValue& v, NamedCounts& out) {
  if (!v.is_object()) return false;
  NamedCounts counts;
  for (const auto& [name, value] : v.as_object()) {
    std::optional<uint64_t> n = value.as_exact_uint();
    if (!n) return false;
    counts.push_back({name, *n});
  }
  out = std::move(counts);
  return true;
}

template <typename Group>
bool from_json(const JsonValue& v, Group& group) {
  if (!v.is_object()) return false;
  for (const auto& member : v.as_object()) {
    const auto& key = member.first;  // a named reference, not a binding: lambdas may capture it
    const auto& value = member.second;
    bool read = false;
    Group::for_each_field(group, [&](const char* name, auto& field) {
      if (read || key != name) return;
      typename std::remove_reference_t<decltype(field)>::value_type parsed{};
      read = from_json(value, parsed);
      if (read) field = std::move(parsed);
    });
    if (!read) group.unread.emplace_back(key, value);
  }
  return true;
}

}  // namespace

JsonValue stats_to_json(const ReportStats& stats) { return to_json(stats); }

ReportStats stats_from_json(const JsonValue& object) {
  ReportStats stats;
  from_json(object, stats);
  return stats;
}

}  // namespace umbra
