// The exit paths that bypass ICorProfilerCallback::Shutdown: exit() called from native code, and SIGTERM, SIGINT
// and SIGABRT (abort() in native code) (termination_signals.h). Environment.Exit and a normal return reach
// Shutdown; an unhandled exception is caught in the exception callbacks (profiler.cpp).
#pragma once

namespace umbra {

void install_exit_paths();

}  // namespace umbra
