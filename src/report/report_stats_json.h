// The report's "stats" (report/report_stats.h) as a JSON object, and back.
#pragma once

#include "report/json_value.h"
#include "report/report_stats.h"

namespace umbra {

// The fields present, with their keys in for_each_field's order, then the unread keys as they were.
JsonValue stats_to_json(const ReportStats& stats);

// Reads what this umbra understands and keeps the rest in `unread`: stats never make a report unreadable (they are
// not needed to show the call tree). A value that is not an object reads as no stats at all.
ReportStats stats_from_json(const JsonValue& object);

}  // namespace umbra
