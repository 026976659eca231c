// Asking a running profile for a report now (`umbra dump PID`), without a signal: any signal umbra took could be
// one the program uses. Each profiled process listens on a FIFO of its own,
//   $TMPDIR/umbra-control-<pid>-<start>     (mode 0600, made by umbra; <start>: field 22 of /proc/<pid>/stat)
// where the start time tells it from a FIFO a dead process of the same pid left behind. The launcher makes a
// private directory with a FIFO for the answer and writes one line to the control FIFO:
//   report <absolute path of the answer FIFO>\n
// umbra writes the period's report (<prefix>.p<n>.*, see profiler/periodic_reports.h) and answers on that FIFO:
//   ok <n> <duration_ns>\n<file>\n<file>\n...end\n      or      error <why>\n
// Both ends are in this header so that the launcher and the library cannot drift apart.
#pragma once

#include <string>

namespace umbra {

inline std::string report_request_fifo(const std::string& tmp_directory, long long pid,
                                       unsigned long long start_ticks) {
  return tmp_directory + "/umbra-control-" + std::to_string(pid) + "-" + std::to_string(start_ticks);
}

inline constexpr const char* kReportRequestVerb = "report ";
inline constexpr const char* kReportAnswerOk = "ok ";
inline constexpr const char* kReportAnswerError = "error ";
inline constexpr const char* kReportAnswerEnd = "end";

}  // namespace umbra
