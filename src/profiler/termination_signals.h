// SIGTERM and SIGINT end a .NET program on Linux without Shutdown or exit handlers (measured on .NET 10: the
// runtime lets the default action kill the process). umbra's handler only wakes a thread of its own (one write to
// a pipe, async-signal-safe); that thread writes the report, marked partial, then puts back the handler that was
// there before and sends the same signal again, so the program ends exactly as it would have (same signal, same
// exit status). The report is never written from the handler itself.
// SIGABRT (Environment.FailFast, abort() in native code) cannot wait for a thread: the process ends when the handler
// returns. So its handler waits, at most 5 s, for the report, then passes the signal to the previous handler.
#pragma once

namespace umbra {

using TerminationCallback = void (*)(int signo);

// Installs the handlers and starts the waiting thread. `write_report` runs on that thread.
void install_termination_signals(TerminationCallback write_report);

}  // namespace umbra
