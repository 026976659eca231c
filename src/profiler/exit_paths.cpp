#include "profiler/exit_paths.h"

#include <signal.h>

#include <cstdlib>

#include "profiler/log.h"
#include "profiler/profiler.h"
#include "profiler/termination_signals.h"

namespace umbra {
namespace {

// The runtime may already be torn down when exit handlers run, so names come from the cache only.
void finish_at_exit() {
  if (Session* s = Profiler::active_session()) s->finish("exit", false);
}

// On umbra's own thread, while the program still runs: the report covers the run so far.
void finish_on_signal(int signo) {
  const char* name = signo == SIGTERM ? "SIGTERM" : signo == SIGINT ? "SIGINT" : "SIGABRT";
  const char* trigger = signo == SIGTERM ? "signal_sigterm" : signo == SIGINT ? "signal_sigint" : "signal_sigabrt";
  log::always(std::string(name) + " received: writing a partial report, then ending as the signal asks");
  if (Session* s = Profiler::active_session()) s->finish(trigger, false);
}

}  // namespace

void install_exit_paths() {
  std::atexit(finish_at_exit);
  install_termination_signals(finish_on_signal);
}

}  // namespace umbra
