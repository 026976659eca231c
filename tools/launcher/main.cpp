// umbra: runs a .NET program under the profiler. See launcher.h for the command line.
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "attach_command.h"
#include "dump_command.h"
#include "clr/guids.h"
#include "launcher.h"
#include "output_directory.h"
#include "report_command.h"
#include "report_listing.h"
#include "report_writers.h"
#include "signal_forwarding.h"
#include "profiler/config.h"
#include "profiler/options.h"
#include "profiler/pyroscope_ingest.h"
#include "profiler/value_parsers.h"
#include "util/version.h"

namespace {

using namespace umbra::launcher;

std::string self_path() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  buf[n] = '\0';
  return buf;
}

void set_profiler_environment(const std::string& library_path, const RunRequest& run) {
  setenv("CORECLR_ENABLE_PROFILING", "1", 1);
  setenv("CORECLR_PROFILER", umbra::clr::kUmbraClsidText, 1);
  setenv("CORECLR_PROFILER_PATH", library_path.c_str(), 1);
  unsetenv("CORECLR_PROFILER_PATH_64");  // it would win over CORECLR_PROFILER_PATH
  for (const auto& [name, value] : run.environment) setenv(name.c_str(), value.c_str(), 1);
  // Each process of the run writes its reports from its own working directory (a build runs its compiler in the
  // project's): a relative prefix is given to them made absolute, so that every report lands where it was asked.
  const char* output = std::getenv("UMBRA_OUTPUT");
  if (output && *output) setenv("UMBRA_OUTPUT", absolute_path(output).c_str(), 1);
  // Every call in the source is counted unless inlining is allowed: that includes a method's tail calls to itself,
  // which the JIT otherwise turns into a loop. The JIT reads this only from the environment at start-up.
  const char* allow_inlining = std::getenv("UMBRA_ALLOW_INLINING");
  bool inlining_allowed = allow_inlining && umbra::parse_bool(allow_inlining).value_or(false);
  if (!inlining_allowed) setenv("DOTNET_TailCallLoopOpt", "0", 0);
}

// The directory of the prefix asked for (-o, or UMBRA_OUTPUT as the program will see it), made if missing; the
// default prefix is in the current directory.
void make_directory_for_reports(const RunRequest& run) {
  std::optional<std::string> asked = run.output_prefix;
  if (!asked && std::getenv("UMBRA_OUTPUT")) asked = std::getenv("UMBRA_OUTPUT");
  if (!asked) return;
  std::string problem = make_output_directory(*asked);
  if (!problem.empty())
    std::fprintf(stderr,
                 "umbra: cannot make the directory of '%s' (%s); the reports go to a new directory in $TMPDIR\n",
                 asked->c_str(), problem.c_str());
}

// An environment entry ending in a pid ("NAME=...<pid>"), which the started child writes in before exec (it may not
// allocate: see run_program).
class PidVariable {
 public:
  explicit PidVariable(std::string before_pid) : text_(std::move(before_pid)), digits_at_(text_.size()) {
    text_.append(24, '\0');
  }
  char* entry() { return text_.data(); }
  // Async-signal-safe.
  void write(pid_t pid) {
    char digits[24];
    size_t n = 0;
    do digits[n++] = char('0' + pid % 10);
    while ((pid /= 10) > 0);
    for (size_t i = 0; i < n; ++i) text_[digits_at_ + i] = digits[n - 1 - i];
    text_[digits_at_ + n] = '\0';
  }

 private:
  std::string text_;
  size_t digits_at_;
};

// Starts the program with vfork: the child runs in the launcher's memory, the launcher waiting, until it execs, so it
// only makes system calls and writes its pid into the prepared variables; fork would copy the launcher's page tables
// first (about 0.2 ms of every run). The pid, or -1; `exec_error`: the errno of a failed exec.
pid_t start_program(char** argv, char** environment, PidVariable* launched, PidVariable* default_output,
                    volatile int& exec_error) {
  pid_t program = vfork();
  if (program == 0) {
    restore_inherited_signals();
    pid_t self = getpid();
    launched->write(self);
    if (default_output) default_output->write(self);
    execvpe(argv[0], argv, environment);
    exec_error = errno;
    _exit(127);
  }
  return program;
}

// Starts the program and waits for it; its pid, or -1 (with a line said) if it could not be started.
pid_t run_program(const RunRequest& run, int& status) {
  std::vector<std::string> command = run.command;
  std::vector<char*> argv;
  for (auto& a : command) argv.push_back(a.data());
  argv.push_back(nullptr);
  // Every .NET process in the tree shares the prefix; only this one writes <prefix>.json (see launched_pid in
  // profiler/option_rules.cpp).
  PidVariable launched("UMBRA_LAUNCHED_PID=");
  PidVariable default_output("UMBRA_OUTPUT=" + absolute_path("umbra-"));
  bool output_given = run.output_prefix || std::getenv("UMBRA_OUTPUT");
  std::vector<char*> environment;
  for (char** variable = environ; *variable; ++variable)
    if (std::strncmp(*variable, "UMBRA_LAUNCHED_PID=", 19) != 0) environment.push_back(*variable);
  environment.push_back(launched.entry());
  if (!output_given) environment.push_back(default_output.entry());
  environment.push_back(nullptr);
  volatile int exec_error = 0;
  pid_t program = start_program(argv.data(), environment.data(), &launched, output_given ? nullptr : &default_output,
                                exec_error);
  if (program < 0) {
    std::fprintf(stderr, "umbra: cannot start '%s': %s\n", run.command[0].c_str(), std::strerror(errno));
    return -1;
  }
  if (exec_error != 0)
    std::fprintf(stderr, "umbra: cannot run '%s': %s\n", run.command[0].c_str(), std::strerror(exec_error));
  forward_to(program);
  wait_for_program(program, status);
  forward_to(0);
  return program;
}

// A secret option's password (--push https://user:token@host) overwritten in the launcher's own arguments, which
// every local user can read in /proc/PID/cmdline; the copy in `args` is what the launcher uses.
void hide_secrets(int argc, char** argv) {
  for (int i = 1; i + 1 < argc; ++i) {
    const umbra::Option* option = umbra::find_flag(argv[i]);
    if (option == nullptr || !option->secret) continue;
    std::string_view value(argv[++i]);
    std::string shown = umbra::redacted_url(value);
    if (shown == value) continue;
    // The password lies between the scheme and the '@': stars over it, the length kept.
    size_t scheme = value.find("://");
    size_t from = scheme == std::string_view::npos ? 0 : scheme + 3;
    size_t at = value.substr(0, std::min(value.find('/', from), value.size())).rfind('@');
    for (size_t k = from; k < at; ++k) argv[i][k] = '*';
  }
}

}  // namespace

// An allocation that fails anywhere on this thread is one line and status 2, not an abort (`umbra report` says more
// about its own, made on a thread of its own).
int main(int argc, char** argv) try {
  using namespace umbra::launcher;
  std::vector<std::string> args(argv + 1, argv + argc);
  hide_secrets(argc, argv);
  if (!args.empty() && args[0] == "report") return run_report_command({args.begin() + 1, args.end()});
  if (!args.empty() && args[0] == "dump") return run_dump_command({args.begin() + 1, args.end()});
  ParseResult parsed = parse_command_line(args);
  if (parsed.help) {
    std::fputs(usage().c_str(), stdout);
    return 0;
  }
  if (parsed.version) {
    std::printf("umbra %s\n", umbra::umbra_version());
    return 0;
  }
  if (!parsed.run && !parsed.attach) {
    std::fprintf(stderr, "umbra: %s\n\n%s", parsed.error.c_str(), usage().c_str());
    return 2;
  }
  auto library = find_profiler_library(self_path());
  if (!library) {
    std::fprintf(stderr, "umbra: cannot find libumbra.so next to %s (set UMBRA_LIBRARY to its path)\n",
                 self_path().c_str());
    return 2;
  }
  char resolved[PATH_MAX];
  std::string library_path = realpath(library->c_str(), resolved) ? resolved : *library;
  if (parsed.attach) return run_attach_command(*parsed.attach, library_path);
  RunRequest& run = *parsed.run;

  make_directory_for_reports(run);
  set_profiler_environment(library_path, run);
  start_forwarding();
  adopt_orphans();
  int status = 0;
  pid_t program = run_program(run, status);
  if (program < 0) return 127;
  wait_for_report_writers(signal_after_program);
  std::string prefix = run.output_prefix.value_or(
      std::getenv("UMBRA_OUTPUT") ? std::getenv("UMBRA_OUTPUT") : "./umbra-" + std::to_string(program));
  std::fputs(report_listing(prefix, status).c_str(), stderr);
  int exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return exit_code;
} catch (const std::bad_alloc&) {
  std::fputs("umbra: out of memory (an address-space limit, ulimit -v, too low?)\n", stderr);
  return 2;
}
