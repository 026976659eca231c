// Writes a Report as an indented per-thread call tree for people: calls, samples and those taken on a CPU, total
// and self time, share of the thread, children sorted by total, and nodes under `min_percent` of their thread
// folded into one line. A thread's line says its samples and its CPU time (and in shadow mode its calls and time).
#pragma once

#include <string>
#include <vector>

#include "report/report.h"

namespace umbra {

std::string report_to_text(const Report& report, double min_percent);

// "stacks by signal checked against the runtime's walks: ..." (no newline), or "" when none was checked.
std::string signal_walk_check_line(const ReportStats& stats);
// The same per thread, for the threads whose stacks by signal differed from the runtime's walks (--verify's lines).
std::vector<std::string> thread_walk_check_lines(const Report& report);
// "stacks incomplete: N samples under [stack incomplete], ..." by reason (no newline), or "" when there were none.
std::string stacks_incomplete_line(const ReportStats& stats);

}  // namespace umbra
