#include "signal_forwarding.h"

#include <atomic>
#include <cerrno>

namespace umbra::launcher {
namespace {

constexpr int kForwardedSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
// The program, while it runs; 0 before it starts and once it has been reaped (its pid may then be reused).
std::atomic<pid_t> g_program{0};
static_assert(std::atomic<pid_t>::is_always_lock_free);
// A forwarded signal that came once the program had been reaped: nobody to pass it on to.
std::atomic<int> g_after_program{0};
struct sigaction g_inherited[NSIG];
sigset_t g_inherited_mask;

void forward_signal(int signo, siginfo_t* info, void*) {
  int saved_errno = errno;
  pid_t program = g_program.load(std::memory_order_acquire);
  bool sent_by_a_process = info == nullptr || info->si_code <= 0;  // kill/sigqueue, not the kernel (a terminal)
  if (program > 0 && sent_by_a_process && (info == nullptr || info->si_pid != program)) kill(program, signo);
  if (program == 0) g_after_program.store(signo, std::memory_order_relaxed);
  errno = saved_errno;
}

}  // namespace

void start_forwarding() {
  sigset_t forwarded;
  sigemptyset(&forwarded);
  for (int signo : kForwardedSignals) {
    sigaddset(&forwarded, signo);
    sigaction(signo, nullptr, &g_inherited[signo]);
    bool ignored = !(g_inherited[signo].sa_flags & SA_SIGINFO) && g_inherited[signo].sa_handler == SIG_IGN;
    if (ignored) continue;
    struct sigaction forward {};
    forward.sa_sigaction = forward_signal;
    forward.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&forward.sa_mask);
    sigaction(signo, &forward, nullptr);
  }
  // Held until the program's pid is known, so that a signal arriving meanwhile is forwarded, not lost.
  sigprocmask(SIG_BLOCK, &forwarded, &g_inherited_mask);
}

void restore_inherited_signals() {
  for (int signo : kForwardedSignals) sigaction(signo, &g_inherited[signo], nullptr);
  sigprocmask(SIG_SETMASK, &g_inherited_mask, nullptr);
}

void forward_to(pid_t program) {
  g_program.store(program, std::memory_order_release);
  if (program > 0) sigprocmask(SIG_SETMASK, &g_inherited_mask, nullptr);
}

int signal_after_program() { return g_after_program.load(std::memory_order_relaxed); }

}  // namespace umbra::launcher
