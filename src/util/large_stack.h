// Runs work on a thread with a large stack: report trees are as deep as the deepest call stack (65,536 frames by
// default), and converting or writing them recurses once per level.
#pragma once

#include <pthread.h>

#include <cstddef>
#include <cstring>
#include <string>

namespace umbra {

inline constexpr size_t kLargeStackBytes = size_t(512) << 20;

// False, with the work not run and `error` saying why, when no such thread can be had (an address-space limit,
// ulimit -v): the work must not run on a small stack instead, where a deep tree overflows it.
template <typename Work>
bool run_on_large_stack(Work&& work, std::string* error = nullptr, size_t stack_bytes = kLargeStackBytes) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, stack_bytes);
  struct Call {
    Work* work;
    static void* run(void* self) {
      (*static_cast<Call*>(self)->work)();
      return nullptr;
    }
  } call{&work};
  pthread_t thread;
  int failed = pthread_create(&thread, &attr, &Call::run, &call);
  if (failed == 0) pthread_join(thread, nullptr);
  else if (error) *error = std::strerror(failed);
  pthread_attr_destroy(&attr);
  return failed == 0;
}

// What to tell the user when run_on_large_stack could not start its thread.
inline std::string large_stack_refusal(const std::string& error) {
  return "no thread with a " + std::to_string(kLargeStackBytes >> 20) + " MiB stack for the report's deep trees (" +
         error + "); raise the address-space limit (ulimit -v)";
}

}  // namespace umbra
