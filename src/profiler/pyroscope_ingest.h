// What Grafana Pyroscope's ingest API takes: POST {URL}/ingest?name=APP{k=v,...}&from=S&until=S&format=pprof, the
// gzipped profile.proto in the multipart field "profile" (Pyroscope's docs, "Server HTTP API"). Here the URL and the
// names are checked and the request's URL is built; nothing here does any I/O.
// Pyroscope takes an application name of letters, digits and _ . - /, label keys of letters, digits, _ and ., and
// label values without , { } (they end a label), so the defaults are made to fit and the user's are checked.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace umbra {

using PushLabels = std::vector<std::pair<std::string, std::string>>;

// http:// or https://, a host, and no space, control character, query or fragment (umbra adds the query).
bool is_push_url(std::string_view url);
bool is_application_name(std::string_view name);
// The program's name as an application name: "OrderService.dll" -> "OrderService"; any other character -> '_'.
std::string application_name_of(std::string_view program);
// "key=value,key=value"; nothing (the first bad item in `bad`) if an item is not a label Pyroscope takes.
std::optional<PushLabels> parse_labels(std::string_view text, std::string* bad = nullptr);
// A value as a label can hold it: , { } = spaces and control characters become '_'.
std::string label_value(std::string_view text);

struct IngestRequest {
  std::string base_url;  // is_push_url
  std::string application;
  PushLabels labels;     // in order; a later key replaces an earlier one
  uint64_t from_s = 0, until_s = 0;  // Unix time of the period's start and end
  uint32_t sample_rate_hz = 100;
};
std::string ingest_url(const IngestRequest& request);

// The URL as messages may show it: a user name and password in it (https://user:token@host, or user:token@host
// without a scheme) are hidden.
std::string redacted_url(std::string_view url);

}  // namespace umbra
