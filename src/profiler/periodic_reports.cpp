#include "profiler/periodic_reports.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "profiler/report_request.h"
#include "util/log.h"

namespace umbra {
namespace {

// Field 22 of /proc/self/stat: this process's start time in clock ticks since boot.
unsigned long long start_ticks() {
  std::ifstream in("/proc/self/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), {});
  size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return 0;
  std::istringstream fields(stat.substr(paren + 2));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i)
    if (i == 22) return std::strtoull(field.c_str(), nullptr, 10);
  return 0;
}

std::string tmp_directory() {
  const char* tmp = std::getenv("TMPDIR");
  std::string directory = tmp && *tmp ? tmp : "/tmp";
  while (directory.size() > 1 && directory.back() == '/') directory.pop_back();
  return directory;
}

// Writes all of `text` to a non-blocking FIFO, waiting at most a second for room each time.
void write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n > 0) {
      done += size_t(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    pollfd room{fd, POLLOUT, 0};
    if (n < 0 && errno == EAGAIN && poll(&room, 1, 1000) == 1 && !(room.revents & (POLLERR | POLLHUP))) continue;
    return;  // the asker is gone
  }
}

}  // namespace

PeriodicReports::PeriodicReports(uint32_t every_ms, WriteReport write, std::function<void()> thread_setup)
    : every_ms_(every_ms), write_(std::move(write)), thread_setup_(std::move(thread_setup)) {}

PeriodicReports::~PeriodicReports() {
  stop();
  join();
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

bool PeriodicReports::open_fifo() {
  std::string path = report_request_fifo(tmp_directory(), getpid(), start_ticks());
  // mkfifo fails on any name already there: another user's FIFO or link is never used.
  if (mkfifo(path.c_str(), 0600) != 0) {
    log::info("no control FIFO at {} ({}): `umbra dump` cannot ask this process for a report", path,
              std::strerror(errno));
    return false;
  }
  fifo_fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
  struct stat st {};
  if (fifo_fd_ < 0 || fstat(fifo_fd_, &st) != 0 || !S_ISFIFO(st.st_mode) || st.st_uid != geteuid()) {
    log::info("cannot open the control FIFO {}: `umbra dump` cannot ask this process for a report", path);
    if (fifo_fd_ >= 0) ::close(fifo_fd_);
    fifo_fd_ = -1;
    unlink(path.c_str());
    return false;
  }
  // Through /proc, the same FIFO whatever the path names by now.
  fifo_writer_fd_ = ::open(("/proc/self/fd/" + std::to_string(fifo_fd_)).c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  fifo_path_ = path;
  return true;
}

void PeriodicReports::start() {
  wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  open_fifo();
  thread_ = std::thread([this] { run(); });
}

void PeriodicReports::remove_fifo() {
  if (!fifo_path_.empty()) unlink(fifo_path_.c_str());
}

void PeriodicReports::stop() {
  stopping_.store(true, std::memory_order_release);
  // The process is ending: nothing may ask it for a report any more, and no FIFO is left behind.
  remove_fifo();
  uint64_t one = 1;
  if (wake_fd_ >= 0) {
    ssize_t ignored = write(wake_fd_, &one, sizeof one);
    (void)ignored;
  }
}

void PeriodicReports::join() {
  if (thread_.joinable()) thread_.join();
  if (!fifo_path_.empty()) unlink(fifo_path_.c_str());
  fifo_path_.clear();
  for (int* fd : {&fifo_fd_, &fifo_writer_fd_})
    if (*fd >= 0) {
      ::close(*fd);
      *fd = -1;
    }
}

void PeriodicReports::run() {
  pthread_setname_np(pthread_self(), "umbra-periodic");
  using Clock = std::chrono::steady_clock;
  const auto every = std::chrono::milliseconds(every_ms_);
  Clock::time_point next = Clock::now() + every;
  std::string pending;  // bytes of a request line not yet whole
  while (!stopping_.load(std::memory_order_acquire)) {
    int timeout_ms = -1;
    if (every_ms_) timeout_ms = int(std::max<int64_t>(0, std::chrono::ceil<std::chrono::milliseconds>(next - Clock::now()).count()));
    pollfd fds[2] = {{wake_fd_, POLLIN, 0}, {fifo_fd_, POLLIN, 0}};
    int ready = poll(fds, fifo_fd_ >= 0 ? 2 : 1, timeout_ms);
    if (stopping_.load(std::memory_order_acquire) || (ready > 0 && (fds[0].revents & POLLIN))) return;
    if (every_ms_ && Clock::now() >= next) {
      set_up_once();
      write_("period_every");
      Clock::time_point now = Clock::now();
      while (next <= now) next += every;
    }
    if (ready > 0 && (fds[1].revents & POLLIN)) {
      char bytes[4096];
      ssize_t n = read(fifo_fd_, bytes, sizeof bytes);
      if (n > 0) pending.append(bytes, size_t(n));
      for (size_t end; (end = pending.find('\n')) != std::string::npos;) {
        std::string request = pending.substr(0, end);
        pending.erase(0, end + 1);
        if (!stopping_.load(std::memory_order_acquire)) answer(request);
      }
      if (pending.size() > 8192) pending.clear();  // no request is that long
    }
  }
}

// Only before the first report: a thread that writes none never calls into the runtime at all.
void PeriodicReports::set_up_once() {
  if (thread_setup_ && !set_up_) thread_setup_();
  set_up_ = true;
}

void PeriodicReports::answer(const std::string& request) {
  const std::string verb = kReportRequestVerb;
  if (request.compare(0, verb.size(), verb) != 0) return;
  std::string path = request.substr(verb.size());
  if (path.empty() || path[0] != '/') return;
  // The asker's FIFO, of this process's user; opened without waiting: an asker that is not reading is gone.
  int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
  struct stat st {};
  if (fd < 0 || fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode) || st.st_uid != geteuid()) {
    if (fd >= 0) ::close(fd);
    log::debug("ignored a report request answering to {}", path);
    return;
  }
  set_up_once();
  Written written = write_("period_request");
  std::string text;
  if (!written.error.empty()) {
    text = std::string(kReportAnswerError) + written.error + "\n";
  } else {
    text = std::string(kReportAnswerOk) + std::to_string(written.index) + " " + std::to_string(written.duration_ns) +
           "\n";
    for (const std::string& file : written.files) text += file + "\n";
    text += std::string(kReportAnswerEnd) + "\n";
  }
  write_all(fd, text);
  ::close(fd);
}

}  // namespace umbra
