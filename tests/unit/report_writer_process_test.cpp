// The copy a descendant hands its last report to: named for the launcher, its standard streams /dev/null, no
// descriptor of the program's kept but the log's, the mutexes the report takes free in it, and below the program
// in priority; the launcher waits only while the program it started runs.
#include "profiler/report_writer_process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <limits.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>

#include "util/log.h"

namespace umbra {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

std::string link_target(const std::string& path) {
  char target[PATH_MAX];
  ssize_t n = readlink(path.c_str(), target, sizeof target - 1);
  return n > 0 ? std::string(target, size_t(n)) : "";
}

TEST(ReportWriterProcess, TheCopyKeepsOnlyTheLogAndFindsTheReportsLocksFree) {
  std::string log_path = testing::TempDir() + "report_writer_" + std::to_string(getpid()) + ".log";
  std::remove(log_path.c_str());
  log::init("warn", log_path);
  int program_pipe[2];
  ASSERT_EQ(pipe(program_pipe), 0);  // what the program's parent reads: the copy must not keep it open
  // A thread of the program holds a mutex the report takes, for a while: the copy is made once it is free.
  std::mutex names;
  std::atomic<bool> taken{false};
  std::thread naming([&] {
    std::lock_guard<std::mutex> lock(names);
    taken = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
  });
  while (!taken) std::this_thread::yield();
  int holds = 0;
  auto hold = [&] {
    ++holds;
    if (!names.try_lock()) return false;
    // Ended before the copy is made: the copy has only the thread that made it, and ThreadSanitizer's copy of its
    // bookkeeping would count the other as a thread never joined.
    naming.join();
    return true;
  };
  ReportWriter side = copy_for_report(hold, [&] { names.unlock(); });
  if (side == ReportWriter::kInWriter) {
    char comm[32] = {};
    FILE* f = std::fopen("/proc/self/comm", "re");
    if (f) std::fgets(comm, sizeof comm, f), std::fclose(f);
    comm[std::strcspn(comm, "\n")] = '\0';
    bool free = names.try_lock();
    log::always(std::string("copy: comm=") + comm + " stdout=" + link_target("/proc/self/fd/1") +
                " pipe=" + (fcntl(program_pipe[1], F_GETFD) == -1 ? "closed" : "open") +
                " mutex=" + (free ? "free" : "held") + " nice=" + std::to_string(getpriority(PRIO_PROCESS, 0)));
    end_report_writer();
  }
  ASSERT_EQ(side, ReportWriter::kElsewhere);
  EXPECT_GT(holds, 1);  // tried again while the thread held it
  close(program_pipe[1]);
  // Every copy of the write end is closed once the copy has closed its own: the reader sees the end.
  pollfd end = {program_pipe[0], POLLIN, 0};
  ASSERT_EQ(poll(&end, 1, 10000), 1) << "the copy keeps the program's pipe open";
  char byte;
  EXPECT_EQ(read(program_pipe[0], &byte, 1), 0);
  close(program_pipe[0]);
  int status = 0;
  pid_t copy = wait(&status);
  ASSERT_GT(copy, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  std::string text = read_text(log_path);
  EXPECT_NE(text.find("umbra: the report is written by process " + std::to_string(copy) + " (umbra-writer)"),
            std::string::npos) << text;
  EXPECT_NE(text.find("copy: comm=umbra-writer stdout=/dev/null pipe=closed mutex=free nice=10"), std::string::npos)
      << text;
  log::init("warn");
  std::remove(log_path.c_str());
}

TEST(ReportWriterProcess, LocksThatStayBusyKeepTheReportInTheProcess) {
  int holds = 0;
  EXPECT_EQ(copy_for_report([&] { return ++holds, false; }, [] { FAIL() << "released what was not held"; }),
            ReportWriter::kHere);
  EXPECT_GT(holds, 10);
}

TEST(ReportWriterProcess, TheLauncherWaitsOnlyWhileTheProgramItStartedRuns) {
  EXPECT_TRUE(launcher_waits_for(getpid()));
  pid_t ended = fork();
  if (ended == 0) _exit(0);
  ASSERT_GT(ended, 0);
  // Ended but not reaped yet: a zombie.
  bool zombie_seen_running = true;
  for (int i = 0; i < 200 && (zombie_seen_running = launcher_waits_for(ended)); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_FALSE(zombie_seen_running);
  int status;
  ASSERT_EQ(waitpid(ended, &status, 0), ended);
  EXPECT_FALSE(launcher_waits_for(ended));
}

}  // namespace
}  // namespace umbra
