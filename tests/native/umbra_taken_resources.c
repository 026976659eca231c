/* Preloaded into a profiled program to take from umbra what a real program or system may have taken already:
     UMBRA_TAKE_RT_SIGNALS=1  every real-time signal above the runtime's own (SIGRTMIN) has a handler at start-up,
                              and the runtime's handler of SIGRTMIN reads as absent to a query (a runtime without
                              one: umbra then has no signal to share either)
     UMBRA_HANG_WRITES_DIR=D  opening a file for writing under D never returns (a writer stuck on a dead mount)
   open and open64 are intercepted (umbra's writer creates its files with open), and sigaction. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

static void ignore_signal(int signo, siginfo_t* info, void* context) {
  (void)signo;
  (void)info;
  (void)context;
}

static int taking_rt_signals(void) {
  const char* take = getenv("UMBRA_TAKE_RT_SIGNALS");
  return take && strcmp(take, "1") == 0;
}

__attribute__((constructor)) static void take_rt_signals(void) {
  if (!taking_rt_signals()) return;
  for (int sig = SIGRTMIN + 1; sig <= SIGRTMAX; ++sig) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = ignore_signal;
    action.sa_flags = SA_SIGINFO;
    sigaction(sig, &action, NULL);
  }
}

EXPORT int sigaction(int signo, const struct sigaction* action, struct sigaction* old) {
  static int (*real)(int, const struct sigaction*, struct sigaction*);
  if (!real) real = (int (*)(int, const struct sigaction*, struct sigaction*))dlsym(RTLD_NEXT, "sigaction");
  int result = real(signo, action, old);
  if (result == 0 && signo == SIGRTMIN && action == NULL && old != NULL && taking_rt_signals()) {
    memset(old, 0, sizeof *old);
    old->sa_handler = SIG_DFL;
  }
  return result;
}

static void hang_if_writing_under_dir(const char* path, int flags) {
  const char* dir = getenv("UMBRA_HANG_WRITES_DIR");
  size_t n = dir ? strlen(dir) : 0;
  if ((flags & O_ACCMODE) == O_RDONLY || n == 0 || !path || strncmp(path, dir, n) != 0 || path[n] != '/') return;
  for (;;) pause();
}

static int on_open(const char* path, int flags, mode_t mode, int (*real)(const char*, int, ...)) {
  hang_if_writing_under_dir(path, flags);
  return real(path, flags, mode);
}
#include "interposed_open.h"
