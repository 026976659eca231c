#include "profiler/value_parsers.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "util/join.h"

namespace umbra {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return text;
}

std::optional<uint64_t> parse_unsigned(const std::string& text, uint64_t min, uint64_t max) {
  if (text.empty() || text.size() > 20 || !std::all_of(text.begin(), text.end(), ::isdigit)) return std::nullopt;
  errno = 0;
  unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
  if (errno != 0 || v < min || v > max) return std::nullopt;
  return v;
}

std::optional<double> parse_percent(const std::string& text) { return parse_decimal(text, 0, 100); }

std::optional<double> parse_decimal(const std::string& text, double min, double max) {
  // Plain decimals only: strtod alone would also take hex, exponents, "inf" and leading spaces.
  if (text.empty() || text.size() > 32 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return std::isdigit((unsigned char)c) || c == '.'; }))
    return std::nullopt;
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(text.c_str(), &end);
  if (errno != 0 || end != text.c_str() + text.size() || !std::isfinite(v) || v < min || v > max) return std::nullopt;
  return v;
}

std::optional<bool> parse_bool(const std::string& text) {
  std::string t = lower(text);
  if (t == "1" || t == "true" || t == "yes" || t == "on") return true;
  if (t == "0" || t == "false" || t == "no" || t == "off") return false;
  return std::nullopt;
}

std::optional<uint64_t> parse_duration_ms(const std::string& text, uint64_t min_ms, uint64_t max_ms) {
  size_t digits = 0;
  while (digits < text.size() && (std::isdigit((unsigned char)text[digits]) || text[digits] == '.')) ++digits;
  const std::string unit = lower(text.substr(digits));
  double ms_per_unit = unit == "ms" ? 1 : unit == "s" || unit.empty() ? 1e3 : unit == "m" ? 6e4 : unit == "h" ? 3.6e6 : 0;
  std::optional<double> number = parse_decimal(text.substr(0, digits), 0, 1e12);
  if (!number || ms_per_unit == 0) return std::nullopt;
  double ms = std::round(*number * ms_per_unit);
  if (ms < double(min_ms) || ms > double(max_ms)) return std::nullopt;
  return uint64_t(ms);
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    std::string item = lower(text.substr(start, comma - start));
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (!item.empty()) out.push_back(item);
    start = comma + 1;
  }
  return out;
}

std::string or_list(const std::vector<std::string>& items) {
  if (items.size() < 2) return join(items);
  return join({items.begin(), items.end() - 1}) + " or " + items.back();
}

}  // namespace umbra
