// umbra: runs a .NET program under the profiler. See launcher.h for the command line.
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "clr/guids.h"
#include "launcher.h"
#include "report_command.h"
#include "report_files.h"
#include "profiler/config.h"
#include "util/join.h"

namespace {

constexpr int kForwardedSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
// The program, while it runs; 0 before it starts and once it has been reaped (its pid may then be reused).
std::atomic<pid_t> g_child{0};
static_assert(std::atomic<pid_t>::is_always_lock_free);
// How the launcher was started to treat each signal: the program starts with the same.
struct sigaction g_inherited[NSIG];

// Signals sent to the launcher alone (kill PID: si_code <= 0) go on to the program. A terminal's Ctrl-C or hang-up
// (from the kernel) already reached the program, which is in the launcher's process group: not sent twice.
void forward_signal(int signo, siginfo_t* info, void*) {
  int saved_errno = errno;
  pid_t child = g_child.load(std::memory_order_acquire);
  bool sent_by_a_process = info == nullptr || info->si_code <= 0;
  if (child > 0 && sent_by_a_process && (info == nullptr || info->si_pid != child)) kill(child, signo);
  errno = saved_errno;
}

// Signals the launcher's starter ignores (nohup) stay ignored, for the launcher and for the program.
void install_forwarding() {
  for (int signo : kForwardedSignals) {
    sigaction(signo, nullptr, &g_inherited[signo]);
    bool ignored = !(g_inherited[signo].sa_flags & SA_SIGINFO) && g_inherited[signo].sa_handler == SIG_IGN;
    if (ignored) continue;
    struct sigaction forward {};
    forward.sa_sigaction = forward_signal;
    forward.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&forward.sa_mask);
    sigaction(signo, &forward, nullptr);
  }
}

sigset_t forwarded_set() {
  sigset_t set;
  sigemptyset(&set);
  for (int signo : kForwardedSignals) sigaddset(&set, signo);
  return set;
}

std::string self_path() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  buf[n] = '\0';
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace umbra::launcher;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "report") return run_report_command({args.begin() + 1, args.end()});
  ParseResult parsed = parse_command_line(args);
  if (parsed.help) {
    std::fputs(usage().c_str(), stdout);
    return 0;
  }
  if (!parsed.run) {
    std::fprintf(stderr, "umbra: %s\n\n%s", parsed.error.c_str(), usage().c_str());
    return 2;
  }
  RunRequest& run = *parsed.run;
  auto library = find_profiler_library(self_path());
  if (!library) {
    std::fprintf(stderr, "umbra: cannot find libumbra.so next to %s (set UMBRA_LIBRARY to its path)\n",
                 self_path().c_str());
    return 2;
  }
  char resolved[PATH_MAX];
  std::string library_path = realpath(library->c_str(), resolved) ? resolved : *library;

  setenv("CORECLR_ENABLE_PROFILING", "1", 1);
  setenv("CORECLR_PROFILER", umbra::clr::kUmbraClsidText, 1);
  setenv("CORECLR_PROFILER_PATH", library_path.c_str(), 1);
  unsetenv("CORECLR_PROFILER_PATH_64");  // it would win over CORECLR_PROFILER_PATH
  for (const auto& [name, value] : run.environment) setenv(name.c_str(), value.c_str(), 1);
  // Every call in the source is counted unless inlining is allowed: that includes a method's tail calls to itself,
  // which the JIT otherwise turns into a loop. The JIT reads this only from the environment at start-up.
  const char* allow_inlining = std::getenv("UMBRA_ALLOW_INLINING");
  bool inlining_allowed = allow_inlining && umbra::parse_bool(allow_inlining).value_or(false);
  if (!inlining_allowed) setenv("DOTNET_TailCallLoopOpt", "0", 0);

  install_forwarding();
  std::vector<char*> child_argv;
  for (auto& a : run.command) child_argv.push_back(a.data());
  child_argv.push_back(nullptr);
  // Held until the program's pid is known, so that a signal arriving meanwhile is forwarded, not lost.
  sigset_t forwarded = forwarded_set(), previous_mask;
  sigprocmask(SIG_BLOCK, &forwarded, &previous_mask);
  pid_t child = fork();
  if (child < 0) {
    std::fprintf(stderr, "umbra: cannot start '%s': %s\n", run.command[0].c_str(), std::strerror(errno));
    return 127;
  }
  if (child == 0) {
    for (int signo : kForwardedSignals) sigaction(signo, &g_inherited[signo], nullptr);
    sigprocmask(SIG_SETMASK, &previous_mask, nullptr);
    // Every .NET process in the tree shares the prefix; only this one writes <prefix>.json (see config.cpp).
    std::string self = std::to_string(getpid());
    setenv("UMBRA_LAUNCHED_PID", self.c_str(), 1);
    if (!run.output_prefix && !std::getenv("UMBRA_OUTPUT")) setenv("UMBRA_OUTPUT", ("./umbra-" + self).c_str(), 1);
    execvp(child_argv[0], child_argv.data());
    std::fprintf(stderr, "umbra: cannot run '%s': %s\n", run.command[0].c_str(), std::strerror(errno));
    _exit(127);
  }
  g_child.store(child, std::memory_order_release);
  sigprocmask(SIG_SETMASK, &previous_mask, nullptr);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  g_child.store(0, std::memory_order_release);
  int exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

  std::string prefix = run.output_prefix.value_or(
      std::getenv("UMBRA_OUTPUT") ? std::getenv("UMBRA_OUTPUT") : "./umbra-" + std::to_string(child));
  ReportFiles files = find_report_files(prefix);
  if (!files.launched.empty()) std::fprintf(stderr, "umbra: report: %s\n", umbra::join(files.launched).c_str());
  else if (WIFSIGNALED(status))
    std::fprintf(stderr,
                 "umbra: the program was ended by signal %d (%s) before a report was written at %s.*; "
                 "Environment.FailFast and SIGKILL end a .NET process without notice\n",
                 WTERMSIG(status), strsignal(WTERMSIG(status)), prefix.c_str());
  else std::fprintf(stderr, "umbra: no report at %s.* (see the messages above)\n", prefix.c_str());
  if (!files.descendants.empty())
    std::fprintf(stderr, "umbra: reports of %zu descendant processes: %s\n", files.descendant_count,
                 umbra::join(files.descendants).c_str());
  return exit_code;
}
