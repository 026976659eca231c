// Writes a Report as JSON (schema umbra-report/3: each method named once in "frames", nodes as numbers). Every node
// is written; nothing is folded.
#pragma once

#include <string>

#include "report/report.h"

namespace umbra {

std::string report_to_json(const Report& report);

}  // namespace umbra
