#include "profiler/exit_paths.h"

#include <cstdlib>

#include "profiler/profiler.h"

namespace umbra {
namespace {

// The runtime may already be torn down when exit handlers run, so names come from the cache only.
void finish_at_exit() {
  if (Session* s = Profiler::active_session()) s->finish("exit", false);
}

}  // namespace

void install_exit_paths() { std::atexit(finish_at_exit); }

}  // namespace umbra
