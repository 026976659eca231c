// Writes a Report as JSON (schema umbra-report/3: each method named once in "frames", nodes as numbers). Every node
// is written; nothing is folded.
#pragma once

#include <string>

#include "report/report.h"
#include "util/shared_work.h"

namespace umbra {

// With `work`, its helpers write parts of large trees beside the caller (the same text).
std::string report_to_json(const Report& report, SharedWork* work = nullptr);

}  // namespace umbra
