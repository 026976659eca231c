// Runs work on a thread with a large stack: report trees are as deep as the deepest call stack (65,536 frames by
// default), and converting or writing them recurses once per level.
#pragma once

#include <pthread.h>

#include <cstddef>

namespace umbra {

template <typename Work>
void run_on_large_stack(Work&& work, size_t stack_bytes = size_t(512) << 20) {
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
  if (pthread_create(&thread, &attr, &Call::run, &call) == 0) {
    pthread_join(thread, nullptr);
  } else {
    work();  // no thread to be had: try on this one
  }
  pthread_attr_destroy(&attr);
}

}  // namespace umbra
