/* Native code for NativeMix's `shapes` phases: callers of managed callbacks built as distro libraries are, without
   frame pointers but with unwind tables (-fomit-frame-pointer, CFI kept), and a thread of its own (pthread_create)
   that enters managed code through an UnmanagedCallersOnly entry point. Exported so that dladdr names them. */
#include <pthread.h>
#include <time.h>

#define EXPORT __attribute__((visibility("default"))) __attribute__((noinline))

/* Spins for about `ms` milliseconds of this thread's CPU time. */
EXPORT double umbra_shapes_spin(int ms) {
  struct timespec start, now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
  volatile double acc = 0;
  for (;;) {
    for (int i = 0; i < 50000; ++i) acc = acc * 1.0000001 + (double)(i & 7);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    long elapsed = (now.tv_sec - start.tv_sec) * 1000L + (now.tv_nsec - start.tv_nsec) / 1000000L;
    if (elapsed >= ms) return acc;
  }
}

/* Two frames of this library, neither keeping a frame pointer, between the caller and each callback. */
EXPORT int umbra_shapes_nofp_inner(int (*callback)(int), int value) {
  int r = callback(value);
  __asm__ volatile("" ::: "memory");
  return r ^ value; /* not a tail call: this frame stays on the stack during the callback */
}

/* Calls `callback` `count` times through umbra_shapes_nofp_inner. */
EXPORT int umbra_shapes_nofp_each(int (*callback)(int), int count) {
  int sum = 0;
  for (int i = 0; i < count; ++i) sum += umbra_shapes_nofp_inner(callback, i);
  return sum;
}

/* The same, but leaving RBP as it was (only the stack holds what lives across the calls), as small functions of
   such libraries often do: a frame-pointer chain through the callback then skips this library's frames. */
EXPORT int umbra_shapes_keep_rbp_each(int (*callback)(int), int count) {
  volatile struct {
    int (*callback)(int);
    int left, sum;
  } loop = {callback, count, 0};
  while (loop.left > 0) {
    loop.left = loop.left - 1;
    loop.sum = loop.sum + umbra_shapes_nofp_inner(loop.callback, loop.left);
  }
  return loop.sum;
}

struct thread_args {
  long (*entry)(int);
  int ms;
  long result;
};

/* The native thread's start routine: managed work through `entry`, native work, managed work again. */
EXPORT void* umbra_shapes_thread_start(void* p) {
  struct thread_args* args = (struct thread_args*)p;
  long r = args->entry(args->ms);
  umbra_shapes_spin(args->ms / 2);
  r += args->entry(args->ms);
  args->result = r;
  return 0;
}

/* Runs umbra_shapes_thread_start on a thread made with pthread_create and waits for it. Returns what the two calls
   of `entry` returned, or -1 if the thread could not be made. */
EXPORT long umbra_shapes_run_thread(long (*entry)(int), int ms) {
  struct thread_args args = {entry, ms, 0};
  pthread_t thread;
  if (pthread_create(&thread, 0, umbra_shapes_thread_start, &args) != 0) return -1;
  pthread_join(thread, 0);
  return args.result;
}
