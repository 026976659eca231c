// The termination handler ends the process with the signal only while its own handler is installed: a program
// that installed a handler of its own afterwards and calls umbra's from it decides itself.
#include "profiler/termination_signals.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace umbra {
namespace {

int g_report_pipe[2];
struct sigaction g_umbras;

void report_written(int signo, bool ending) {
  char byte = ending ? 'E' : 'C';
  ssize_t ignored = write(g_report_pipe[1], &byte, 1);
  (void)ignored;
}

void programs_handler(int signo) { g_umbras.sa_handler(signo); }  // chains to the handler it replaced

// In a child process: installs umbra's handlers, optionally a program's own on top, raises SIGTERM and waits for
// the report. Exits with 'E' or 'C' (the callback's `ending`) if the process is still alive after a while.
[[noreturn]] void child(bool program_handler_on_top) {
  if (pipe(g_report_pipe) != 0) _exit(90);
  install_termination_signals(report_written);
  if (program_handler_on_top) {
    struct sigaction mine {};
    mine.sa_handler = programs_handler;
    sigemptyset(&mine.sa_mask);
    sigaction(SIGTERM, &mine, &g_umbras);
  }
  raise(SIGTERM);
  char byte = 0;
  if (read(g_report_pipe[0], &byte, 1) != 1) _exit(91);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // umbra's thread would re-raise by now
  _exit(byte);
}

int run_child(bool program_handler_on_top) {
  pid_t pid = fork();
  if (pid == 0) child(program_handler_on_top);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFSIGNALED(status) ? -WTERMSIG(status) : WEXITSTATUS(status);
}

TEST(TerminationSignals, UmbrasHandlerAloneEndsTheProcessWithTheSignal) {
  EXPECT_EQ(run_child(false), -SIGTERM);
}

TEST(TerminationSignals, AProgramsHandlerInstalledAfterUmbrasDecides) {
  EXPECT_EQ(run_child(true), 'C');
}

}  // namespace
}  // namespace umbra
