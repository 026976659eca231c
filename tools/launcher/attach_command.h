// `umbra attach PID [--duration S] [options]`: loads libumbra.so into a running .NET program through its runtime's
// diagnostics socket (diagnostics_ipc.h), profiles it in sampled mode, and has umbra detach again so that the
// program runs on without it.
//
// The launcher makes a private control directory (attach_settings.h): a FIFO on which it says hello once the
// runtime has answered and sends a stop byte on Ctrl-C (its going away stops the profile too), and the log where
// umbra's messages go (the launcher shows them: the program's own stderr is left alone). It waits until umbra has
// written the report, lists it, then waits for the runtime to have detached umbra.
//
// Exit status: 0 once the report is written; 1 when the program ended without one; 2 when umbra could not attach
// (no such process, not .NET, no diagnostics socket, a profiler already loaded, permission denied), each with one
// line saying so.
#pragma once

#include <string>

#include "launcher.h"

namespace umbra::launcher {

int run_attach_command(const AttachRequest& request, const std::string& library_path);

}  // namespace umbra::launcher
