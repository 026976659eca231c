// The exit path that bypasses ICorProfilerCallback::Shutdown: exit() called from native code. Environment.Exit and
// a normal return reach Shutdown; an unhandled exception is caught in the exception callbacks (profiler.cpp).
#pragma once

namespace umbra {

void install_exit_paths();

}  // namespace umbra
