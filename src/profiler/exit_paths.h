// The exit paths that bypass ICorProfilerCallback::Shutdown: exit() called from native code, and SIGTERM, SIGINT
// and SIGABRT (abort() in native code) (termination_signals.h). Environment.Exit and a normal return reach
// Shutdown; an unhandled exception is caught in the exception callbacks (profiler.cpp).
#pragma once

namespace umbra {

// `with_signal_handlers` false for an attached profiler: it must be able to leave the process, and a handler the
// program installed after umbra's could chain to it. exit() is then still seen; SIGTERM and SIGINT are not.
void install_exit_paths(bool with_signal_handlers = true);

}  // namespace umbra
