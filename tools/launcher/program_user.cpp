#include "program_user.h"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "report/display_text.h"

namespace umbra::launcher {
namespace {

constexpr int kPassedOn[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
// A line of the child's is a message of the launcher's, with a path or two in it.
constexpr size_t kMaxLineBytes = 8192;
// How often the parent looks whether the child was stopped.
constexpr int kLookMs = 200;

volatile sig_atomic_t g_child = 0;
volatile sig_atomic_t g_signals = 0;
volatile sig_atomic_t g_last_signal = 0;

void pass_on(int signo) {
  g_signals = g_signals + 1;
  g_last_signal = signo;
  if (g_child <= 0) return;
  kill(pid_t(g_child), signo);
  if (g_signals > 1) kill(pid_t(g_child), SIGKILL);  // the work did not end on the first: this one is not asked
}

sigset_t passed_on_set() {
  sigset_t set;
  sigemptyset(&set);
  for (int signo : kPassedOn) sigaddset(&set, signo);
  return set;
}

// The parent's handlers; the dispositions it had before, to restore (a signal it was started to ignore, under
// nohup, stays ignored, in the child too).
struct Dispositions {
  struct sigaction before[sizeof kPassedOn / sizeof kPassedOn[0]];
};

void install(Dispositions& saved) {
  struct sigaction action = {};
  action.sa_handler = pass_on;  // no SA_RESTART: the parent's poll returns to look at the child
  sigemptyset(&action.sa_mask);
  for (size_t i = 0; i < std::size(kPassedOn); ++i) {
    sigaction(kPassedOn[i], nullptr, &saved.before[i]);
    if (saved.before[i].sa_handler != SIG_IGN) sigaction(kPassedOn[i], &action, nullptr);
  }
}

void restore(const Dispositions& saved) {
  for (size_t i = 0; i < std::size(kPassedOn); ++i) sigaction(kPassedOn[i], &saved.before[i], nullptr);
}

// Every descriptor but the standard three: the child must not hold root's files, terminals or sockets.
void close_all_but_standard() {
  if (close_range(3, ~0u, 0) == 0) return;
  DIR* fds = opendir("/proc/self/fd");
  if (fds == nullptr) {
    for (long fd = 3, end = sysconf(_SC_OPEN_MAX); fd < end && fd < 65536; ++fd) close(int(fd));
    return;
  }
  std::vector<int> open_fds;
  while (dirent* entry = readdir(fds)) {
    int fd = std::atoi(entry->d_name);
    if (fd > 2 && fd != dirfd(fds)) open_fds.push_back(fd);
  }
  closedir(fds);
  for (int fd : open_fds) close(fd);
}

[[noreturn]] void become_user_and_work(uid_t uid, gid_t gid, const std::vector<gid_t>& groups, int out,
                                       const Dispositions& saved, const std::function<int()>& work) {
  setsid();  // no controlling terminal: the terminal's Ctrl-C reaches the parent alone, which passes it on
  int null = open("/dev/null", O_RDONLY);
  if (null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0) _exit(2);
  close_all_but_standard();
  restore(saved);
  sigset_t passed = passed_on_set();
  if (setgroups(groups.size(), groups.data()) != 0 || setresgid(gid, gid, gid) != 0 || setresuid(uid, uid, uid) != 0) {
    std::fprintf(stderr, "umbra: cannot become the program's user (uid %u, gid %u): %s\n", unsigned(uid),
                 unsigned(gid), std::strerror(errno));
    _exit(2);
  }
  uid_t ru, eu, su;
  gid_t rg, eg, sg;
  if (getresuid(&ru, &eu, &su) != 0 || ru != uid || eu != uid || su != uid || getresgid(&rg, &eg, &sg) != 0 ||
      rg != gid || eg != gid || sg != gid)
    _exit(2);
  prctl(PR_SET_DUMPABLE, 0);  // changing users made it so already; said again because nothing may undo it
  sigprocmask(SIG_UNBLOCK, &passed, nullptr);
  int code = 2;
  try {
    code = work();
  } catch (...) {
    std::fprintf(stderr, "umbra: the work as the program's user failed\n");
  }
  std::fflush(nullptr);
  _exit(code);
}

void show(std::string_view line) {
  std::string shown = display_text(line, kMaxLineBytes);
  shown += '\n';
  std::fwrite(shown.data(), 1, shown.size(), stderr);
}

// The child's lines from `fd` until it closes it, each shown escaped; a child found stopped is ended.
void relay_until_closed(int fd, pid_t child) {
  std::string pending;
  for (;;) {
    pollfd ready{fd, POLLIN, 0};
    int n = poll(&ready, 1, kLookMs);
    siginfo_t stopped{};  // WSTOPPED alone: an ended child is left to be reaped below
    if (waitid(P_PID, id_t(child), &stopped, WSTOPPED | WNOHANG) == 0 && stopped.si_pid == child) {
      std::fprintf(stderr, "umbra: the launcher's work as the program's user was stopped (signal %d); ending it\n",
                   stopped.si_status);
      kill(child, SIGKILL);
    }
    if (n <= 0) continue;
    char bytes[4096];
    ssize_t got = read(fd, bytes, sizeof bytes);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    pending.append(bytes, size_t(got));
    size_t start = 0;
    for (size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1)
      show(std::string_view(pending).substr(start, nl - start));
    pending.erase(0, start);
    if (pending.size() > kMaxLineBytes) {  // a line this long is cut, not kept growing
      show(pending);
      pending.clear();
    }
  }
  if (!pending.empty()) show(pending);
}

}  // namespace

int run_as_program_user(uid_t uid, gid_t gid, const std::vector<gid_t>& groups, const std::function<int()>& work) {
  if (geteuid() == uid) return work();
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    std::fprintf(stderr, "umbra: cannot make a pipe: %s\n", std::strerror(errno));
    return 2;
  }
  std::fflush(nullptr);
  signal(SIGCHLD, SIG_DFL);  // an ignored SIGCHLD would reap the child before its status is read
  // Held from before the fork until the child's pid is known (in the parent) or its own dispositions are back (in
  // the child): no signal is lost or passed to the wrong process.
  sigset_t passed = passed_on_set(), before;
  sigprocmask(SIG_BLOCK, &passed, &before);
  Dispositions saved;
  install(saved);
  pid_t child = fork();
  if (child == 0) {
    close(pipe_fds[0]);
    become_user_and_work(uid, gid, groups, pipe_fds[1], saved, work);
  }
  close(pipe_fds[1]);
  if (child < 0) {
    std::fprintf(stderr, "umbra: cannot start a process as the program's user: %s\n", std::strerror(errno));
    close(pipe_fds[0]);
    restore(saved);
    sigprocmask(SIG_SETMASK, &before, nullptr);
    return 2;
  }
  g_child = child;
  sigprocmask(SIG_SETMASK, &before, nullptr);
  relay_until_closed(pipe_fds[0], child);
  close(pipe_fds[0]);
  int status = 0;
  sigprocmask(SIG_BLOCK, &passed, nullptr);  // the pid is not signalled once it may be another process's
  pid_t reaped;
  while ((reaped = waitpid(child, &status, 0)) < 0 && errno == EINTR) {
  }
  g_child = 0;
  restore(saved);
  sigprocmask(SIG_SETMASK, &before, nullptr);
  if (reaped != child) {
    std::fprintf(stderr, "umbra: cannot learn how the work as the program's user ended: %s\n", std::strerror(errno));
    return 2;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  int signo = WTERMSIG(status);
  if (g_signals > 0) raise(g_last_signal);  // ended as asked: the launcher ends by the signal it got
  std::fprintf(stderr, "umbra: the launcher's work as uid %u was ended by signal %d (%s)\n", unsigned(uid), signo,
               strsignal(signo));
  return 128 + signo;
}

}  // namespace umbra::launcher
