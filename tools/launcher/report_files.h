// The report files a profiled run left under one prefix: the launched process's (<prefix>.json, .txt, ...) and
// its descendants' (<prefix>.<pid>.json, ...), for the launcher to list.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

struct ReportFiles {
  std::vector<std::string> launched;
  std::vector<std::string> descendants;  // sorted by process id, then format
  size_t descendant_count = 0;
};

ReportFiles find_report_files(const std::string& prefix);
