// A descendant of the launched program hands its last report to a copy of itself and ends (the profiler's
// report_writer_process.h). The launcher adopts what the program's processes leave behind, so that such a copy stays
// in its tree, and waits for the copies once the program has ended, so that every report is there when it lists
// them.
#pragma once

#include <sys/types.h>

namespace umbra::launcher {

// Before the program starts: a process of the program's tree whose parent ends becomes the launcher's child rather
// than init's (and init's once the launcher has ended, as before).
void adopt_orphans();

// The program's wait status, once it has ended; adopted children that end meanwhile are reaped too. -1 if the
// launcher has no child to wait for.
pid_t wait_for_program(pid_t program, int& status);

// Once the program has ended: returns when no report writer is left among the launcher's descendants, or when
// `interrupted()` gives a signal's number (the writers go on; that is said). A writer that ended by a signal (its
// report is missing) is said.
void wait_for_report_writers(int (*interrupted)());

}  // namespace umbra::launcher
