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
#include "program_user.h"
#include "report/display_text.h"
#include "profiler/report_request.h"
#include "profiler/value_parsers.h"
#include "util/join.h"

namespace umbra::launcher {
namespace {

void say(const std::string& line) { std::fprintf(stderr, "umbra: %s\n", line.c_str()); }

// The private directory the answer comes through, made by the program's user (program_user.h); its FIFO is reached
// through the directory's descriptor. Removed with its FIFO.
class AnswerFifo {
 public:
  ~AnswerFifo() {
    if (fd_ >= 0) close(fd_);
    if (dir_fd_ < 0) return;
    unlinkat(dir_fd_, kName, 0);
    close(dir_fd_);
    rmdir(path_.c_str());
  }
  // Made under $TMPDIR (or /tmp), mode 0700, and opened for reading (so that umbra can open it for writing without
  // waiting). "" on success, else why not.
  std::string make() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/umbra-dump-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) return "cannot make a directory like " + pattern + ": " + strerror(errno);
    path_ = pattern;
    dir_fd_ = open(path_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dir_fd_ < 0) return "cannot open the directory " + path_ + ": " + strerror(errno);
    if (mkfifoat(dir_fd_, kName, 0600) != 0) return "cannot make the FIFO " + fifo() + ": " + strerror(errno);
    fd_ = openat(dir_fd_, kName, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
    struct stat st {};
    if (fd_ < 0 || fstat(fd_, &st) != 0 || !S_ISFIFO(st.st_mode)) return "cannot open the FIFO " + fifo();
    return "";
  }
  std::string fifo() const { return path_ + "/" + kName; }
  int fd() const { return fd_; }

 private:
  static constexpr const char* kName = "answer";
  std::string path_;
  int dir_fd_ = -1;
  int fd_ = -1;
};

// A few lines of file names: anything longer is not umbra's answer.
constexpr size_t kMaxAnswerBytes = 1 << 20;

std::string seconds(uint64_t ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", double(ns) / 1e9);
  return text;
}

// The request and its answer, as the program's user: the FIFOs are in places that user controls.
int dump_as_program_user(pid_t pid, const ProcessBasics& process, double wait_s) {
  std::string who = "pid " + std::to_string(pid) + " (" + process.name + ")";
  std::optional<ProcessStat> stat = read_process_stat((long long)pid);
  std::string control = report_request_fifo(process.tmp_directory, (long long)pid, stat ? stat->start_ticks : 0);
  const std::string shown = display_text(control, 4096);  // the program's $TMPDIR is in it
  struct stat st {};
  if (lstat(control.c_str(), &st) != 0) {
    say(who + " is not profiled by umbra: it has no " + shown);
    return 2;
  }
  if (!S_ISFIFO(st.st_mode) || st.st_uid != process.uid) {
    say(shown + " is not " + who + "'s: it is " + (S_ISFIFO(st.st_mode) ? "a FIFO" : "not a FIFO") +
        " of uid " + std::to_string(st.st_uid) + ", made before the program could make its own; the program cannot " +
        "be asked for a report (its log says so)");
    return 2;
  }
  AnswerFifo answer;
  if (std::string problem = answer.make(); !problem.empty()) {
    say(problem);
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  int fd = open(control.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0 || fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode) || st.st_uid != process.uid) {
    say(fd < 0 && errno == ENXIO ? who + " no longer listens on " + shown + " (is it ending?)"
                                 : "cannot use " + shown + (fd < 0 ? std::string(": ") + strerror(errno)
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
    if (text.size() > kMaxAnswerBytes) {
      say(who + " answered with more than " + std::to_string(kMaxAnswerBytes) + " bytes; that is no report's answer");
      return 2;
    }
    if (kill(pid, 0) != 0 && errno == ESRCH) {
      say(who + " ended before its report was written");
      return 2;
    }
  }
  if (text.rfind(kReportAnswerError, 0) == 0) {
    std::string why = text.substr(std::strlen(kReportAnswerError));
    while (!why.empty() && why.back() == '\n') why.pop_back();
    say(who + " wrote no report: " + display_text(why));
    return 2;
  }
  std::vector<std::string> lines;
  for (size_t start = 0, nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1)
    lines.push_back(text.substr(start, nl - start));
  unsigned long index = 0;
  unsigned long long duration_ns = 0;
  std::sscanf(lines[0].c_str(), "ok %lu %llu", &index, &duration_ns);
  std::vector<std::string> files;
  for (auto line = lines.begin() + 1; line + 1 < lines.end(); ++line) files.push_back(display_text(*line));
  say("report p" + std::to_string(index) + " of " + who + " (the " + seconds(duration_ns) + " s since " +
      (index > 1 ? "p" + std::to_string(index - 1) : std::string("its start")) + "): " +
      (files.empty() ? std::string("no file could be written (see the program's messages)") : join(files)));
  return files.empty() ? 2 : 0;
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
  return run_as_program_user(process.uid, process.gid, process.groups,
                             [&] { return dump_as_program_user(pid_t(*pid), process, wait_s); });
}

}  // namespace umbra::launcher
