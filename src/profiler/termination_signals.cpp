#include "profiler/termination_signals.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

namespace umbra {
namespace {

constexpr int kSignals[] = {SIGTERM, SIGINT};
int g_pipe[2] = {-1, -1};
struct sigaction g_previous[2];
TerminationCallback g_write_report = nullptr;

int index_of(int signo) { return signo == SIGTERM ? 0 : 1; }

void on_termination_signal(int signo) {
  int saved_errno = errno;
  unsigned char byte = static_cast<unsigned char>(signo);
  ssize_t ignored = write(g_pipe[1], &byte, 1);  // a full pipe means a report is already on its way
  (void)ignored;
  errno = saved_errno;
}

void wait_and_write() {
  pthread_setname_np(pthread_self(), "umbra-signals");
  for (;;) {
    unsigned char byte = 0;
    ssize_t n = read(g_pipe[0], &byte, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n != 1) return;
    int signo = byte;
    g_write_report(signo);
    // End the way the signal would have ended the program without umbra.
    sigaction(signo, &g_previous[index_of(signo)], nullptr);
    kill(getpid(), signo);
    return;
  }
}

}  // namespace

void install_termination_signals(TerminationCallback write_report) {
  if (g_write_report != nullptr || pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0) return;
  // The reading end blocks; only the handler's write must never block.
  fcntl(g_pipe[0], F_SETFL, fcntl(g_pipe[0], F_GETFL) & ~O_NONBLOCK);
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
