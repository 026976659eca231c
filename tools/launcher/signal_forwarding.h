// The launcher's signals: a signal sent to the launcher alone (`kill PID`) is passed on to the program; one the
// program already received (a terminal's Ctrl-C or hang-up reaches the whole foreground process group) is not sent
// twice; a signal the launcher was started to ignore (nohup) stays ignored, for the launcher and the program.
#pragma once

#include <signal.h>
#include <sys/types.h>

namespace umbra::launcher {

// Installs the forwarding handlers and holds the forwarded signals until the program's pid is known.
void start_forwarding();
// In the forked child, before exec: the dispositions and mask the launcher itself was started with.
void restore_inherited_signals();
// In the launcher once the program runs (pid > 0) and once it is reaped (0): held signals are delivered now.
void forward_to(pid_t program);
// A forwarded signal received once the program was reaped (0 if none): the launcher stops waiting and ends.
int signal_after_program();

}  // namespace umbra::launcher
