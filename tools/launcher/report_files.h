// The report files a profiled run left under one prefix: the launched process's (<prefix>.json, .txt, ...) and
// its descendants' (<prefix>.<pid>.json, ...), for the launcher to list.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <vector>

// A process's periodic reports (<prefix>.p<n>.*, --every or `umbra dump`): their numbers and extensions.
struct PeriodicReportFiles {
  std::set<unsigned long> numbers;      // the n of each
  std::vector<std::string> extensions;  // ".json", ".txt", ... each once, in the order formats are listed
};

struct ProcessReportFiles {
  unsigned long long pid = 0;
  std::vector<std::string> files;  // JSON first, then by name
  PeriodicReportFiles periods;
};

struct ReportFiles {
  std::vector<std::string> launched;             // JSON first, then by name
  PeriodicReportFiles launched_periods;
  std::vector<ProcessReportFiles> descendants;  // by process id
};

ReportFiles find_report_files(const std::string& prefix);
