// A descendant of the launched program (a build's compiler) hands its last report to a copy of itself and ends at
// once: whoever waits for it (the build) goes on, while the copy builds and writes the report. The launcher, which
// adopts the copy once its parent is gone, waits for it before it lists the reports (tools/launcher/main.cpp).
//
// The copy has one thread, this one. What it uses must not be held by a thread it does not have: the caller holds
// every mutex the report takes while the process is copied, and the copy calls nothing of the runtime's. Its
// standard streams are /dev/null (the program's parent may be reading the originals) and it keeps only the log
// file's descriptor.
#pragma once

#include <functional>

namespace umbra {

// The name a report writer takes (its /proc/PID/comm): how the launcher tells it from the program's own processes.
inline constexpr const char* kReportWriterName = "umbra-writer";

enum class ReportWriter {
  kHere,       // no copy was made (its locks stayed busy, or fork failed): write the report in this process
  kInWriter,   // this is the copy: write the report, then end_report_writer()
  kElsewhere,  // the copy writes the report: this process goes on ending
};

// Whether the launcher still waits for the program it started (`launched`, whose pid it gave): then it also waits
// for report writers, and lists the reports once they are written. A descendant that outlives that program writes
// its report itself.
bool launcher_waits_for(pid_t launched);

// `hold` tries to take every mutex the report will take, without waiting (false: none is held); `release` gives
// them back, in both processes.
ReportWriter copy_for_report(const std::function<bool()>& hold, const std::function<void()>& release);

// Ends the copy, without the program's exit handlers (they are the original's).
[[noreturn]] void end_report_writer();

}  // namespace umbra
