/* Native code for umbra's sampled-mode tests: a CPU-heavy function, a callback into managed code through a native
   frame of its own, and a blocking call. Exported so that dladdr names them. */
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
