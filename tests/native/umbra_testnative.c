/* Native code for umbra's sampled-mode tests: a CPU-heavy function, a callback into managed code through a native
   frame of its own, blocking calls. Exported so that dladdr names them. */
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <time.h>

#define EXPORT __attribute__((visibility("default"))) __attribute__((noinline))

/* Spins for about `ms` milliseconds of CPU and returns a value that depends on every iteration. */
EXPORT double umbra_native_spin(int ms) {
  struct timespec start, now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
  double acc = 0;
  for (;;) {
    for (int i = 0; i < 100000; ++i) acc = acc * 1.0000001 + (double)(i & 7);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    long elapsed = (now.tv_sec - start.tv_sec) * 1000L + (now.tv_nsec - start.tv_nsec) / 1000000L;
    if (elapsed >= ms) return acc;
  }
}

EXPORT int umbra_native_trampoline(int (*callback)(int), int value) {
  int r = callback(value);
  return r + 1; /* not a tail call: this frame stays on the stack during the callback */
}

/* Calls `callback` `count` times, each through umbra_native_trampoline. */
EXPORT int umbra_native_callback(int (*callback)(int), int count) {
  int sum = 0;
  for (int i = 0; i < count; ++i) sum += umbra_native_trampoline(callback, i);
  return sum;
}

EXPORT void umbra_native_sleep(int ms) {
  struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&t, &t) != 0) {
  }
}

/* For about `ms` milliseconds: a little work, then a 1 ms wait in poll, then one in nanosleep, neither retried, as
   code that treats EINTR as an error is written. Returns how many waits failed with EINTR. */
EXPORT int umbra_native_strict_waits(int ms) {
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  int failures = 0;
  volatile double acc = 0;
  for (;;) {
    for (int i = 0; i < 20000; ++i) acc = acc * 1.0000001 + (double)(i & 7);
    if (poll(0, 0, 1) < 0 && errno == EINTR) ++failures;
    struct timespec t = {0, 1000000L};
    if (nanosleep(&t, 0) < 0 && errno == EINTR) ++failures;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long elapsed = (now.tv_sec - start.tv_sec) * 1000L + (now.tv_nsec - start.tv_nsec) / 1000000L;
    if (elapsed >= ms) return failures;
  }
}

/* For about `ms` milliseconds: loads the library at `path`, calls its umbra_plugin_value, unloads it. Returns how
   many rounds did all three as expected, or minus the number that did not. */
EXPORT int umbra_native_load_unload(const char* path, int ms) {
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  int rounds = 0, failed = 0;
  for (;;) {
    void* library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    int (*value)(void) = library ? (int (*)(void))dlsym(library, "umbra_plugin_value") : 0;
    if (value && value() == 42 && dlclose(library) == 0) ++rounds;
    else ++failed;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long elapsed = (now.tv_sec - start.tv_sec) * 1000L + (now.tv_nsec - start.tv_nsec) / 1000000L;
    if (elapsed >= ms) return failed ? -failed : rounds;
  }
}
