// `umbra dump PID [--wait S]`: asks a program profiled by umbra (started with `umbra run`, attached to, or a
// descendant of either) for the report of the period since its previous one, now, while it runs on
// (profiler/report_request.h: a FIFO, never a signal). Prints where the report went.
//
// Exit status: 0 once the report is written; 2 with one line when it cannot be asked for (no such process, another
// user's, not profiled by umbra, ending) or was not written; 1 when no answer came within S seconds (default 120:
// a shadow-mode tree of millions of nodes takes seconds to write).
#pragma once

#include <string>
#include <vector>

namespace umbra::launcher {

inline constexpr const char* kDumpSynopsis = "umbra dump PID [--wait S]";

int run_dump_command(const std::vector<std::string>& args);

}  // namespace umbra::launcher
