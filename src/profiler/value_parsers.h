// Parsers of single option values, shared by the option table and `umbra report`. Each takes a value whole or
// not at all (nullopt): no leading spaces, signs, hex or exponents.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace umbra {

std::string lower(std::string text);
std::optional<uint64_t> parse_unsigned(const std::string& text, uint64_t min, uint64_t max);
std::optional<double> parse_percent(const std::string& text);  // 0 to 100
std::optional<double> parse_decimal(const std::string& text, double min, double max);
std::optional<bool> parse_bool(const std::string& text);        // 1/0, true/false, yes/no, on/off
// A length of time as whole milliseconds: a decimal number with a unit, ms, s, m or h ("500ms", "1.5s", "5m"); a
// number without one is seconds.
std::optional<uint64_t> parse_duration_ms(const std::string& text, uint64_t min_ms, uint64_t max_ms);
// Comma-separated items, lower-cased and trimmed; empty ones dropped.
std::vector<std::string> split_list(const std::string& text);
// "a, b or c", for messages that say what a valid value is.
std::string or_list(const std::vector<std::string>& items);

}  // namespace umbra
