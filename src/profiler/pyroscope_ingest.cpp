#include "profiler/pyroscope_ingest.h"

#include <algorithm>
#include <cctype>

namespace umbra {
namespace {

bool is_key_char(char c) { return std::isalnum((unsigned char)c) || c == '_' || c == '.'; }
bool is_name_char(char c) { return is_key_char(c) || c == '-' || c == '/'; }
bool is_value_char(char c) {
  return (unsigned char)c > ' ' && c != 0x7f && c != ',' && c != '{' && c != '}' && c != '=';
}

std::string percent_encoded(std::string_view text) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += char(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace

bool is_push_url(std::string_view url) {
  std::string_view rest;
  if (url.rfind("http://", 0) == 0) rest = url.substr(7);
  else if (url.rfind("https://", 0) == 0) rest = url.substr(8);
  else return false;
  std::string_view host = rest.substr(0, rest.find('/'));
  if (host.empty() || host.back() == '@' || host.find_first_of("?#") != std::string_view::npos) return false;
  return std::none_of(url.begin(), url.end(), [](char c) {
    return (unsigned char)c <= ' ' || c == 0x7f || c == '?' || c == '#';
  });
}

bool is_application_name(std::string_view name) {
  return !name.empty() && name.size() <= 200 && std::all_of(name.begin(), name.end(), is_name_char);
}

std::string application_name_of(std::string_view program) {
  for (std::string_view suffix : {".dll", ".exe"})
    if (program.size() > suffix.size() && program.substr(program.size() - suffix.size()) == suffix)
      program.remove_suffix(suffix.size());
  std::string name(program.substr(0, 200));
  for (char& c : name)
    if (!is_name_char(c)) c = '_';
  return name.empty() ? "dotnet" : name;
}

std::optional<PushLabels> parse_labels(std::string_view text, std::string* bad) {
  PushLabels labels;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = std::min(text.find(',', start), text.size());
    std::string_view item = text.substr(start, comma - start);
    start = comma + 1;
    if (item.empty() && comma == text.size()) break;  // a trailing comma
    size_t equals = item.find('=');
    std::string_view key = item.substr(0, equals), value = equals == std::string_view::npos ? "" : item.substr(equals + 1);
    bool ok = equals != std::string_view::npos && !key.empty() && !value.empty() && key != "__name__" &&
              !std::isdigit((unsigned char)key[0]) && std::all_of(key.begin(), key.end(), is_key_char) &&
              std::all_of(value.begin(), value.end(), is_value_char);
    if (!ok) {
      if (bad) *bad = std::string(item);
      return std::nullopt;
    }
    labels.emplace_back(key, value);
  }
  return labels;
}

std::string label_value(std::string_view text) {
  std::string value(text.substr(0, 200));
  for (char& c : value)
    if (!is_value_char(c)) c = '_';
  return value.empty() ? "_" : value;
}

std::string ingest_url(const IngestRequest& request) {
  PushLabels labels;
  for (const auto& label : request.labels) {
    auto same = std::find_if(labels.begin(), labels.end(), [&](const auto& l) { return l.first == label.first; });
    if (same != labels.end()) same->second = label.second;
    else labels.push_back(label);
  }
  std::string name = request.application + "{";
  for (size_t i = 0; i < labels.size(); ++i) name += (i ? "," : "") + labels[i].first + "=" + labels[i].second;
  name += "}";
  std::string url = request.base_url;
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url + "/ingest?name=" + percent_encoded(name) + "&from=" + std::to_string(request.from_s) +
         "&until=" + std::to_string(request.until_s) + "&format=pprof&spyName=umbra&sampleRate=" +
         std::to_string(request.sample_rate_hz);
}

std::string redacted_url(std::string_view url) {
  size_t scheme = url.find("://");
  size_t host_start = scheme == std::string_view::npos ? 0 : scheme + 3;  // a refused URL may have no scheme
  size_t host_end = std::min(url.find('/', host_start), url.size());
  size_t at = url.substr(0, host_end).rfind('@');
  if (at == std::string_view::npos || at < host_start) return std::string(url);
  return std::string(url.substr(0, host_start)) + "***@" + std::string(url.substr(at + 1));
}

}  // namespace umbra
