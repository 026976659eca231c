#include "dump_command.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "attach_target.h"
#include "profiler/report_request.h"
#include "profiler/value_parsers.h"
#include "util/join.h"

namespace umbra::launcher {
namespace {

void say(const std::string& line) { std::fprintf(stderr, "umbra: %s\n", line.c_str()); }

// The private directory the answer comes through; removed with its FIFO.
class AnswerFifo {
 public:
  ~AnswerFifo() {
    if (fd_ >= 0) close(fd_);
    if (path_.empty()) return;
    unlink(fifo().c_str());
    rmdir(path_.c_str());
  }
  // Made under $TMPDIR (or /tmp), mode 0700, handed to the program's user when the launcher runs as root, and
  // opened for reading (so that umbra can open it for writing without waiting). "" on success, else why not.
  std::string make(uid_t uid, gid_t gid) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/umbra-dump-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) return "cannot make a directory like " + pattern + ": " + strerror(errno);
    path_ = pattern;
    if (mkfifo(fifo().c_str(), 0600) != 0) return "cannot make the FIFO " + fifo() + ": " + strerror(errno);
    if (geteuid() != uid && (chown(path_.c_str(), uid, gid) != 0 || chown(fifo().c_str(), uid, gid) != 0))
      return "cannot hand " + path_ + " to the program's user " + std::to_string(uid) + ": " + strerror(errno);
    fd_ = open(fifo().c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd_ < 0) return "cannot open the FIFO " + fifo() + ": " + strerror(errno);
    return "";
  }
  std::string fifo() const { return path_ + "/answer"; }
  int fd() const { return fd_; }

 private:
  std::string path_;
  int fd_ = -1;
};

std::string seconds(uint64_t ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", double(ns) / 1e9);
  return text;
}

}  // namespace

int run_dump_command(const std::vector<std::string>& args) {
  std::string usage = std::string("usage: ") + kDumpSynopsis;
  if (args.empty()) {
    say("dump needs the process id of a program profiled by umbra\n" + usage);
    return 2;
  }
  std::optional<uint64_t> pid = parse_unsigned(args[0], 1, std::numeric_limits<int>::max());
  if (!pid) {
    say("dump: '" + args[0] + "' is not a process id\n" + usage);
    return 2;
  }
  double wait_s = 120;
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i] != "--wait") {
      say("unknown option '" + args[i] + "'\n" + usage);
      return 2;
    }
    double value = i + 1 < args.size() ? parse_decimal(args[i + 1], 0, 1e6).value_or(0) : 0;
    if (!(value > 0)) {
      say("--wait needs a number of seconds above 0");
      return 2;
    }
    wait_s = value;
    ++i;
  }
  ProcessBasics process = process_basics((long long)*pid);
  if (!process.problem.empty()) {
    say(process.problem);
    return 2;
  }
  std::string who = "pid " + std::to_string(*pid) + " (" + process.name + ")";
  std::optional<ProcessStat> stat = read_process_stat((long long)*pid);
  std::string control = report_request_fifo(process.tmp_directory, (long long)*pid, stat ? stat->start_ticks : 0);
  struct stat st {};
  if (lstat(control.c_str(), &st) != 0) {
    say(who + " is not profiled by umbra: it has no " + control);
    return 2;
  }
  AnswerFifo answer;
  if (std::string problem = answer.make(process.uid, process.gid); !problem.empty()) {
    say(problem);
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  int fd = open(control.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0 || fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode) || st.st_uid != process.uid) {
    say(fd < 0 && errno == ENXIO ? who + " no longer listens on " + control + " (is it ending?)"
                                 : "cannot use " + control + (fd < 0 ? std::string(": ") + strerror(errno)
                                                                     : ": not a FIFO of the program's user"));
    if (fd >= 0) close(fd);
    return 2;
  }
  std::string request = std::string(kReportRequestVerb) + answer.fifo() + "\n";
  ssize_t sent = write(fd, request.data(), request.size());
  close(fd);
  if (sent != ssize_t(request.size())) {
    say("cannot ask " + who + " for a report: " + (sent < 0 ? strerror(errno) : "the request was cut"));
    return 2;
  }
  // The answer: "ok <n> <ns>", the files, "end"; or "error <why>".
  std::string text;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(int64_t(std::ceil(wait_s * 1000)));
  for (;;) {
    size_t end = text.find("\n" + std::string(kReportAnswerEnd) + "\n");
    if (end != std::string::npos || text.rfind(kReportAnswerError, 0) == 0) break;
    auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      say("no report from " + who + " within " + seconds(uint64_t(wait_s * 1e9)) + " s (--wait S waits longer)");
      return 1;
    }
    pollfd ready{answer.fd(), POLLIN, 0};
    int n = poll(&ready, 1, int(std::min<int64_t>(left, 200)));
    if (n > 0) {
      char bytes[4096];
      ssize_t got = read(answer.fd(), bytes, sizeof bytes);
      if (got > 0) text.append(bytes, size_t(got));
    }
    if (kill(pid_t(*pid), 0) != 0 && errno == ESRCH) {
      say(who + " ended before its report was written");
      return 2;
    }
  }
  if (text.rfind(kReportAnswerError, 0) == 0) {
    std::string why = text.substr(std::strlen(kReportAnswerError));
    while (!why.empty() && why.back() == '\n') why.pop_back();
    say(who + " wrote no report: " + why);
    return 2;
  }
  std::vector<std::string> lines;
  for (size_t start = 0, nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1)
    lines.push_back(text.substr(start, nl - start));
  unsigned long index = 0;
  unsigned long long duration_ns = 0;
  std::sscanf(lines[0].c_str(), "ok %lu %llu", &index, &duration_ns);
  std::vector<std::string> files(lines.begin() + 1, lines.end() - 1);
  say("report p" + std::to_string(index) + " of " + who + " (the " + seconds(duration_ns) + " s since " +
      (index > 1 ? "p" + std::to_string(index - 1) : std::string("its start")) + "): " +
      (files.empty() ? std::string("no file could be written (see the program's messages)") : join(files)));
  return files.empty() ? 2 : 0;
}

}  // namespace umbra::launcher
