// Writes a Report as an indented per-thread call tree for people: calls, total and self time, share of the
// thread, children sorted by total, and nodes under `min_percent` of their thread folded into one line.
#pragma once

#include <string>

#include "report/report.h"

namespace umbra {

std::string report_to_text(const Report& report, double min_percent);

}  // namespace umbra
