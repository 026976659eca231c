#include "report_files.h"

#include <algorithm>
#include <charconv>
#include <cctype>
#include <filesystem>
#include <map>
#include <optional>
#include <tuple>

namespace {

// Extensions of every format umbra writes (report/output_files.cpp: format_extension).
const char* const kExtensions[] = {".json", ".txt", ".collapsed", ".speedscope.json", ".html", ".pb.gz"};

bool is_report_extension(const std::string& rest) {
  for (const char* ext : kExtensions)
    if (rest == ext) return true;
  return false;
}

// The number whose digits start at rest[start]: it, and where its digits end; nothing if there are none (or more
// than max_digits).
std::optional<std::pair<unsigned long long, size_t>> number_at(const std::string& rest, size_t start, size_t max_digits) {
  size_t end = start;
  while (end < rest.size() && std::isdigit(static_cast<unsigned char>(rest[end]))) ++end;
  if (end == start || end - start > max_digits) return std::nullopt;
  unsigned long long n = 0;
  auto [stop, problem] = std::from_chars(rest.data() + start, rest.data() + end, n);
  if (problem != std::errc() || stop != rest.data() + end) return std::nullopt;
  return std::make_pair(n, end);
}

// ".p<n><extension>": a periodic report's.
bool add_period(const std::string& rest, PeriodicReportFiles& periods) {
  if (rest.size() < 4 || rest.compare(0, 2, ".p") != 0) return false;
  auto n = number_at(rest, 2, 9);
  if (!n || n->first == 0 || !is_report_extension(rest.substr(n->second))) return false;
  std::string ext = rest.substr(n->second);
  if (std::find(periods.extensions.begin(), periods.extensions.end(), ext) == periods.extensions.end())
    periods.extensions.push_back(ext);
  periods.numbers.insert((unsigned long)n->first);
  return true;
}

void order_extensions(PeriodicReportFiles& periods) {
  std::vector<std::string> ordered;
  for (const char* ext : kExtensions)
    if (std::find(periods.extensions.begin(), periods.extensions.end(), ext) != periods.extensions.end())
      ordered.push_back(ext);
  periods.extensions = ordered;
}

}  // namespace

ReportFiles find_report_files(const std::string& prefix) {
  namespace fs = std::filesystem;
  ReportFiles files;
  fs::path p(prefix);
  fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  std::string base = p.filename().string();
  std::error_code ec;
  std::vector<std::tuple<unsigned long long, std::string>> descendants;
  std::map<unsigned long long, PeriodicReportFiles> descendant_periods;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    // umbra writes regular files; a link or a FIFO beside them is someone else's.
    std::error_code type_error;
    if (!entry.is_regular_file(type_error) || entry.is_symlink(type_error)) continue;
    std::string name = entry.path().filename().string();
    if (name.compare(0, base.size(), base) != 0) continue;
    std::string rest = name.substr(base.size());
    std::string shown = prefix + rest;
    if (is_report_extension(rest)) {
      files.launched.push_back(shown);
      continue;
    }
    if (add_period(rest, files.launched_periods)) continue;
    // .<pid><extension>, .<pid>.p<n><extension>. A pid has at most 10 digits: anything else beside the reports is
    // not one of them.
    if (rest.empty() || rest[0] != '.') continue;
    auto pid = number_at(rest, 1, 10);
    if (!pid) continue;
    std::string after = rest.substr(pid->second);
    if (is_report_extension(after)) descendants.emplace_back(pid->first, shown);
    else if (add_period(after, descendant_periods[pid->first]))
      descendants.emplace_back(pid->first, "");  // a process with periodic reports alone is still listed
  }
  for (auto& [pid, periods] : descendant_periods) {
    (void)pid;
    order_extensions(periods);
  }
  auto json_first = [](const std::string& a, const std::string& b) {
    bool aj = a.size() >= 5 && a.compare(a.size() - 5, 5, ".json") == 0 && a.find(".speedscope") == std::string::npos;
    bool bj = b.size() >= 5 && b.compare(b.size() - 5, 5, ".json") == 0 && b.find(".speedscope") == std::string::npos;
    return aj != bj ? aj : a < b;
  };
  std::sort(files.launched.begin(), files.launched.end(), json_first);
  std::sort(descendants.begin(), descendants.end(), [&](const auto& a, const auto& b) {
    return std::get<0>(a) != std::get<0>(b) ? std::get<0>(a) < std::get<0>(b)
                                            : json_first(std::get<1>(a), std::get<1>(b));
  });
  order_extensions(files.launched_periods);
  for (auto& [pid, path] : descendants) {
    if (files.descendants.empty() || files.descendants.back().pid != pid)
      files.descendants.push_back({pid, {}, descendant_periods[pid]});
    if (!path.empty()) files.descendants.back().files.push_back(path);
  }
  return files;
}
