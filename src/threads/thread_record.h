// Everything umbra knows about one managed thread, in one place: the runtime's ThreadID, its name, whether it has
// ended, its shadow stack (shadow mode, once its first hook has run) and what the sampler keeps of it (OS thread id,
// walk guard, native-top buffer, sampled tree).
//
// Ownership: shared_ptr, held by the registry's table for the whole run (a thread's tree is reported after it ends)
// and by the sampler's per-tick target list; nothing is freed while the sampler may hold it.
#pragma once

#include <optional>
#include <string>

#include "clr/corprof.h"
#include "hooks/thread_shadow.h"
#include "threads/sampled_thread.h"

namespace umbra {

struct ThreadRecord {
  explicit ThreadRecord(clr::ThreadID id) : id(id), sampled(id) {}

  const clr::ThreadID id;  // 0 for a shadow whose ThreadID the runtime could not give
  // Under the registry's mutex.
  std::optional<std::string> name;
  bool ended = false;
  ThreadShadow* shadow = nullptr;  // owned by the ShadowPool
  // The sampler's part; its own synchronization (sampled_thread.h).
  SampledThread sampled;
};

}  // namespace umbra
