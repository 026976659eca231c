#include "profiler/termination_signals.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

namespace umbra {
namespace {

constexpr int kSignals[] = {SIGTERM, SIGINT, SIGABRT};
// An abort waits at most this long for the report: the heap or a lock the writer needs may be what failed.
constexpr int kAbortWaitMs = 5000;
int g_wake[2] = {-1, -1};
int g_written[2] = {-1, -1};
struct sigaction g_previous[3];
TerminationCallback g_write_report = nullptr;

int index_of(int signo) { return signo == SIGTERM ? 0 : signo == SIGINT ? 1 : 2; }

void on_termination_signal(int signo);

// A program that installed its own handler after umbra's and calls umbra's from it decides itself what the signal
// does: umbra restores and re-raises only while its own handler is the installed one.
bool handler_still_installed(int signo) {
  struct sigaction current {};
  return sigaction(signo, nullptr, &current) == 0 && !(current.sa_flags & SA_SIGINFO) &&
         current.sa_handler == on_termination_signal;
}

void on_termination_signal(int signo) {
  int saved_errno = errno;
  unsigned char byte = static_cast<unsigned char>(signo);
  ssize_t ignored = write(g_wake[1], &byte, 1);  // a full pipe means a report is already on its way
  (void)ignored;
  if (signo == SIGABRT) {
    // abort() ends the process as soon as this returns: wait (bounded) for the report, then hand the signal to
    // whoever handled it before (the runtime makes its crash dump there). It stays blocked until we return.
    struct pollfd written {g_written[0], POLLIN, 0};
    while (poll(&written, 1, kAbortWaitMs) < 0 && errno == EINTR) {
    }
    if (handler_still_installed(SIGABRT)) {
      sigaction(SIGABRT, &g_previous[index_of(SIGABRT)], nullptr);
      raise(SIGABRT);
    }
  }
  errno = saved_errno;
}

void wait_and_write() {
  pthread_setname_np(pthread_self(), "umbra-signals");
  for (;;) {
    unsigned char byte = 0;
    ssize_t n = read(g_wake[0], &byte, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n != 1) return;
    int signo = byte;
    bool ending = handler_still_installed(signo);
    g_write_report(signo, ending);
    if (signo == SIGABRT) {
      ssize_t ignored = write(g_written[1], &byte, 1);  // the handler sends the signal on
      (void)ignored;
      return;
    }
    if (!ending) continue;  // the program goes on; a later signal is waited for again
    // End the way the signal would have ended the program without umbra.
    sigaction(signo, &g_previous[index_of(signo)], nullptr);
    kill(getpid(), signo);
    return;
  }
}

}  // namespace

void install_termination_signals(TerminationCallback write_report) {
  if (g_write_report != nullptr || pipe2(g_wake, O_CLOEXEC | O_NONBLOCK) != 0) return;
  if (pipe2(g_written, O_CLOEXEC | O_NONBLOCK) != 0) return;
  // The reading end blocks; only the handler's write must never block.
  fcntl(g_wake[0], F_SETFL, fcntl(g_wake[0], F_GETFL) & ~O_NONBLOCK);
  g_write_report = write_report;
  std::thread(wait_and_write).detach();
  for (int signo : kSignals) {
    struct sigaction current {};
    sigaction(signo, nullptr, &current);
    // A program that ignores the signal keeps ignoring it.
    if (!(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_IGN) continue;
    struct sigaction action {};
    action.sa_handler = on_termination_signal;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    sigaction(signo, &action, &g_previous[index_of(signo)]);
  }
}

}  // namespace umbra
