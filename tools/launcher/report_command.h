// `umbra report FILE.json [options]` (kReportSynopsis below): converts a saved report into other formats, filters or
// merges threads, and prints the methods with the most self time. Bad input is one line naming the file and the
// position, and exit status 2; so is a file that needs more memory than the command may take (--max-memory-mb).
#pragma once

#include <string>
#include <vector>

namespace umbra::launcher {

// Follows "usage: " in both usage texts (its second and third lines are indented to match).
inline constexpr char kReportSynopsis[] =
    "umbra report FILE.json [--format LIST] [-o PREFIX] [--thread NAME|TID] [--merge-threads]\n"
    "                    [--min-percent P] [--top N] [--collapsed-weight samples|cpu_samples|self_ns|calls]\n"
    "                    [--collapsed-threads] [--runtime-frames fold|keep] [--max-memory-mb N]\n";

// Runs the command; returns the process exit status (0, or 2 for bad arguments or input).
int run_report_command(const std::vector<std::string>& args);

}  // namespace umbra::launcher
