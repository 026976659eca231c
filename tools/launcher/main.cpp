// umbra: runs a .NET program under the profiler. See launcher.h for the command line.
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

pid_t g_child = 0;

// Signals meant for the program (Ctrl-C in a terminal reaches both; kill reaches only the launcher) go to it.
void forward_signal(int signo) {
  if (g_child > 0) kill(g_child, signo);
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

  struct sigaction forward {};
  forward.sa_handler = forward_signal;
  forward.sa_flags = SA_RESTART;
  sigemptyset(&forward.sa_mask);
  for (int signo : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaction(signo, &forward, nullptr);

  std::vector<char*> child_argv;
  for (auto& a : run.command) child_argv.push_back(a.data());
  child_argv.push_back(nullptr);
  g_child = fork();
  if (g_child < 0) {
    std::fprintf(stderr, "umbra: cannot start '%s': %s\n", run.command[0].c_str(), std::strerror(errno));
    return 127;
  }
  if (g_child == 0) {
    for (int signo : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) signal(signo, SIG_DFL);
    // Every .NET process in the tree shares the prefix; only this one writes <prefix>.json (see config.cpp).
    std::string self = std::to_string(getpid());
    setenv("UMBRA_LAUNCHED_PID", self.c_str(), 1);
    if (!run.output_prefix && !std::getenv("UMBRA_OUTPUT")) setenv("UMBRA_OUTPUT", ("./umbra-" + self).c_str(), 1);
    execvp(child_argv[0], child_argv.data());
    std::fprintf(stderr, "umbra: cannot run '%s': %s\n", run.command[0].c_str(), std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(g_child, &status, 0) < 0 && errno == EINTR) {
  }
  int exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

  std::string prefix = run.output_prefix.value_or(
      std::getenv("UMBRA_OUTPUT") ? std::getenv("UMBRA_OUTPUT") : "./umbra-" + std::to_string(g_child));
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
