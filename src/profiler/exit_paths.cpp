#include "profiler/exit_paths.h"

#include <signal.h>

#include <cstdlib>

#include "util/log.h"
#include "profiler/profiler.h"
#include "profiler/termination_signals.h"

namespace umbra {
namespace {

// The runtime may already be torn down when exit handlers run, so names come from the cache only.
void finish_at_exit() {
  if (Session* s = Profiler::active_session()) s->finish("exit", false);
}

// On umbra's own thread, while the program still runs: the report covers the run so far. When the program's own
// handler called umbra's and the program may go on, the report is provisional: a later exit writes it again.
void finish_on_signal(int signo, bool ending) {
  const char* name = signo == SIGTERM ? "SIGTERM" : signo == SIGINT ? "SIGINT" : "SIGABRT";
  const char* trigger = signo == SIGTERM ? "signal_sigterm" : signo == SIGINT ? "signal_sigint" : "signal_sigabrt";
  log::always(std::string(name) + " received: writing a partial report" +
              (ending ? ", then ending as the signal asks" : "; the program's own handler decides what follows"));
  if (Session* s = Profiler::active_session()) s->finish(trigger, false, /*provisional=*/!ending);
}

}  // namespace

void install_exit_paths(bool with_signal_handlers) {
  // Once per load of the library: attached again without being unloaded, it must not register twice. In a library
  // that is unloaded, the handler runs at the unloading and finds no session.
  static bool registered = false;
  if (!registered) std::atexit(finish_at_exit);
  registered = true;
  if (with_signal_handlers) install_termination_signals(finish_on_signal);
}

}  // namespace umbra
