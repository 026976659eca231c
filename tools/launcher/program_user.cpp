#include "program_user.h"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "report/display_text.h"

namespace umbra::launcher {
namespace {

constexpr int kPassedOn[] = {SIGINT, SIGTERM, SIGHUP};
// A line of the child's is a message of the launcher's, with a path or two in it.
constexpr size_t kMaxLineBytes = 8192;

volatile sig_atomic_t g_child = 0;
volatile sig_atomic_t g_signals = 0;

void pass_on(int signo) {
  g_signals = g_signals + 1;
  if (g_child <= 0) return;
  kill(pid_t(g_child), signo);
  if (g_signals > 1) kill(pid_t(g_child), SIGKILL);  // the work did not end on the first: this one is not asked
}

void set_handlers(void (*handler)(int)) {
  struct sigaction action = {};
  action.sa_handler = handler;  // no SA_RESTART: the parent's read returns to look at the child
  sigemptyset(&action.sa_mask);
  for (int signo : kPassedOn) sigaction(signo, &action, nullptr);
}

// Every descriptor but the standard three: the child must not hold root's files, terminals or sockets.
void close_all_but_standard() {
  if (close_range(3, ~0u, 0) == 0) return;
  DIR* fds = opendir("/proc/self/fd");
  if (fds == nullptr) return;
  std::vector<int> open_fds;
  while (dirent* entry = readdir(fds)) {
    int fd = std::atoi(entry->d_name);
    if (fd > 2 && fd != dirfd(fds)) open_fds.push_back(fd);
  }
  closedir(fds);
  for (int fd : open_fds) close(fd);
}

[[noreturn]] void become_user_and_work(uid_t uid, gid_t gid, int out, const std::function<int()>& work) {
  setpgid(0, 0);  // the terminal's Ctrl-C reaches the parent alone, which passes it on
  int null = open("/dev/null", O_RDONLY);
  if (null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0) _exit(2);
  close_all_but_standard();
  set_handlers(SIG_DFL);
  if (setgroups(0, nullptr) != 0 || setresgid(gid, gid, gid) != 0 || setresuid(uid, uid, uid) != 0) {
    std::fprintf(stderr, "umbra: cannot become the program's user (uid %u, gid %u): %s\n", unsigned(uid),
                 unsigned(gid), std::strerror(errno));
    _exit(2);
  }
  uid_t r, e, s;
  if (getresuid(&r, &e, &s) != 0 || r != uid || e != uid || s != uid) _exit(2);
  prctl(PR_SET_DUMPABLE, 0);  // changing users made it so already; said again because nothing may undo it
  int code = work();
  std::fflush(nullptr);
  _exit(code);
}

void show(std::string_view line) {
  std::string shown = display_text(line, kMaxLineBytes);
  shown += '\n';
  std::fwrite(shown.data(), 1, shown.size(), stderr);
}

}  // namespace

int run_as_program_user(uid_t uid, gid_t gid, const std::function<int()>& work) {
  if (geteuid() == uid) return work();
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    std::fprintf(stderr, "umbra: cannot make a pipe: %s\n", std::strerror(errno));
    return 2;
  }
  std::fflush(nullptr);
  set_handlers(pass_on);
  pid_t child = fork();
  if (child == 0) {
    close(pipe_fds[0]);
    become_user_and_work(uid, gid, pipe_fds[1], work);
  }
  close(pipe_fds[1]);
  if (child < 0) {
    std::fprintf(stderr, "umbra: cannot start a process as the program's user: %s\n", std::strerror(errno));
    close(pipe_fds[0]);
    set_handlers(SIG_DFL);
    return 2;
  }
  g_child = child;
  if (g_signals > 0) kill(child, SIGINT);  // one came before the child's pid was known
  std::string pending;
  for (;;) {
    char bytes[4096];
    ssize_t n = read(pipe_fds[0], bytes, sizeof bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    pending.append(bytes, size_t(n));
    size_t start = 0;
    for (size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1)
      show(std::string_view(pending).substr(start, nl - start));
    pending.erase(0, start);
    if (pending.size() > kMaxLineBytes) {  // a line this long is cut, not kept growing
      show(pending);
      pending.clear();
    }
  }
  close(pipe_fds[0]);
  if (!pending.empty()) show(pending);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  g_child = 0;
  set_handlers(SIG_DFL);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  int signo = WTERMSIG(status);
  if (g_signals > 0 && (signo == SIGINT || signo == SIGTERM || signo == SIGHUP)) raise(signo);  // ended as asked
  std::fprintf(stderr, "umbra: the launcher's work as uid %u was ended by signal %d (%s)\n", unsigned(uid), signo,
               strsignal(signo));
  return 128 + signo;
}

}  // namespace umbra::launcher
