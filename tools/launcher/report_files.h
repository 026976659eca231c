// The report files a profiled run left under one prefix: the launched process's (<prefix>.json, .txt, ...) and
// its descendants' (<prefix>.<pid>.json, ...), for the launcher to list.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

struct ProcessReportFiles {
  unsigned long long pid = 0;
  std::vector<std::string> files;  // JSON first, then by name
};

struct ReportFiles {
  std::vector<std::string> launched;             // JSON first, then by name
  std::vector<ProcessReportFiles> descendants;  // by process id
};

ReportFiles find_report_files(const std::string& prefix);
