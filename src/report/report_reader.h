// Reads a saved report (<prefix>.json, schema umbra-report/4, or /3, /2 or /1 as earlier versions wrote it) back into
// the report model, for `umbra report`.
// Anything that is not such a report is a ReportFormatError naming where in the document the problem is.
// Reading takes no call stack per level, but what is done with a report afterwards (writing, merging, destroying)
// recurses once per level: callers run on a large stack (util/large_stack.h).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

#include "report/json_value.h"
#include "report/report.h"

namespace umbra {

class ReportFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The deepest call tree read: twice the profiler's default stack depth (65,536). The deepest recursion after
// reading, the text report, measured 500 bytes of stack per level (RelWithDebInfo) and 3,050 under ASan+UBSan, so
// this many levels need at most some 380 MiB of run_on_large_stack's 512 MiB; deeper documents are refused.
inline constexpr size_t kMaxReportDepth = size_t(1) << 17;
// What "stats" holds that this umbra does not read is kept and written back recursively; umbra writes three levels.
inline constexpr size_t kMaxStatsDepth = 64;

Report report_from_json(const JsonValue& document);

// Parses `text` and reads it as a report, as `umbra report` does with a file: throws JsonParseError or
// ReportFormatError. JSON nested deeper than a report of kMaxReportDepth levels is a JsonParseError.
Report load_report_from_text(std::string_view text);

}  // namespace umbra
