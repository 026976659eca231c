#include "report_files.h"

#include <algorithm>
#include <charconv>
#include <cctype>
#include <filesystem>
#include <tuple>

namespace {

// Extensions of every format umbra writes (report/output_files.cpp: format_extension).
const char* const kExtensions[] = {".json", ".txt", ".collapsed", ".speedscope.json", ".html", ".pb.gz"};

bool is_report_extension(const std::string& rest) {
  for (const char* ext : kExtensions)
    if (rest == ext) return true;
  return false;
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
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    if (name.compare(0, base.size(), base) != 0) continue;
    std::string rest = name.substr(base.size());
    std::string shown = prefix + rest;
    if (is_report_extension(rest)) {
      files.launched.push_back(shown);
      continue;
    }
    // .<pid><extension>
    size_t digits = 1;
    while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits]))) ++digits;
    if (rest.size() < 2 || rest[0] != '.' || digits == 1 || !is_report_extension(rest.substr(digits))) continue;
    // A pid has at most 10 digits: anything else beside the reports is not one of them.
    unsigned long long pid = 0;
    auto [end, problem] = std::from_chars(rest.data() + 1, rest.data() + digits, pid);
    if (problem != std::errc() || end != rest.data() + digits || digits - 1 > 10) continue;
    descendants.emplace_back(pid, shown);
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
  for (auto& [pid, path] : descendants) {
    if (files.descendants.empty() || files.descendants.back().pid != pid) files.descendants.push_back({pid, {}});
    files.descendants.back().files.push_back(path);
  }
  return files;
}
