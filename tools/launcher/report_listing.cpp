#include "report_listing.h"

#include <sys/wait.h>

#include <cstring>
#include <optional>
#include <vector>

#include "report/display_text.h"
#include "report/report_header.h"
#include "report_files.h"
#include "util/join.h"

namespace umbra::launcher {
namespace {

bool is_json_report(const std::string& path) {
  return path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0 &&
         path.find(".speedscope.json") == std::string::npos;
}

// "pid 123, MSBuild.dll (dotnet .../MSBuild.dll -nodemode:1 ...)", or "" when no JSON report says.
std::string process_named_by(const std::vector<std::string>& files) {
  for (const std::string& path : files) {
    if (!is_json_report(path)) continue;
    std::optional<ReportHeader> header = read_report_header(path);
    if (!header) return "";
    std::string name = "pid " + std::to_string(header->pid);
    if (!header->program.empty()) name += ", " + display_text(header->program);
    if (!header->command_line.empty()) name += " (" + display_command_line(header->command_line) + ")";
    return name;
  }
  return "";
}

// "7 periodic reports: P.p1.* to P.p7.* (.json, .txt)", or "" when there are none.
std::string periods_of(const std::string& prefix, const PeriodicReportFiles& periods) {
  if (periods.numbers.empty()) return "";
  size_t count = periods.numbers.size();
  std::string first = prefix + ".p" + std::to_string(*periods.numbers.begin()) + ".*";
  std::string last = prefix + ".p" + std::to_string(*periods.numbers.rbegin()) + ".*";
  return std::to_string(count) + (count == 1 ? " periodic report: " + first : " periodic reports: " + first + " to " + last) +
         " (" + join(periods.extensions) + ")";
}

}  // namespace

std::string report_listing(const std::string& prefix, int status) {
  ReportFiles files = find_report_files(prefix);
  std::string out;
  if (!files.launched.empty()) {
    std::string process = process_named_by(files.launched);
    out += "umbra: report" + (process.empty() ? "" : " of " + process) + ": " + join(files.launched) + "\n";
  } else if (WIFSIGNALED(status)) {
    out += "umbra: the program was ended by signal " + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ") before a report was written at " + prefix +
           ".*; Environment.FailFast and SIGKILL end a .NET process without notice\n";
  } else {
    out += "umbra: no report at " + prefix + ".* (see the messages above)\n";
  }
  if (std::string periods = periods_of(prefix, files.launched_periods); !periods.empty())
    out += "umbra: " + periods + "\n";
  if (!files.descendants.empty()) {
    out += "umbra: reports of " + std::to_string(files.descendants.size()) + " descendant processes:\n";
    for (const ProcessReportFiles& process : files.descendants) {
      std::string name = process_named_by(process.files);
      if (name.empty()) name = "pid " + std::to_string(process.pid);
      std::string periods = periods_of(prefix + "." + std::to_string(process.pid), process.periods);
      out += "umbra:   " + name + ": " + join(process.files) + (process.files.empty() || periods.empty() ? "" : "; ") +
             periods + "\n";
    }
  }
  return out;
}

}  // namespace umbra::launcher
