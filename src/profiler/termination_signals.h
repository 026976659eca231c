// SIGTERM and SIGINT end a .NET program on Linux without Shutdown or exit handlers (measured on .NET 10: the
// runtime lets the default action kill the process). umbra's handler only wakes a thread of its own (one write to
// a pipe, async-signal-safe); that thread writes the report, marked partial, then puts back the handler that was
// there before and sends the same signal again, so the program ends exactly as it would have (same signal, same
// exit status), unless the program has since installed a handler of its own that chained to umbra's: then the
// program's handler decides, and umbra neither restores nor re-raises. The report is never written from the
// handler itself.
// SIGABRT (Environment.FailFast, abort() in native code) cannot wait for a thread: the process ends when the handler
// returns. So its handler waits, at most 5 s, for the report, then passes the signal to the previous handler.
#pragma once

namespace umbra {

// `ending`: umbra will end the process with the signal afterwards (false when the program installed a handler of
// its own after umbra's and called umbra's from it: the program then decides).
using TerminationCallback = void (*)(int signo, bool ending);

// Installs the handlers and starts the waiting thread. `write_report` runs on that thread.
void install_termination_signals(TerminationCallback write_report);

}  // namespace umbra
