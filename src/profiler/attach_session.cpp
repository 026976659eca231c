#include "profiler/attach_session.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <vector>

#include "profiler/session.h"
#include "util/log.h"
#include "util/private_files.h"

namespace umbra {
namespace {

// The launcher connects to the FIFO as soon as the runtime has answered; one that has not within this long is gone.
constexpr auto kHelloWait = std::chrono::seconds(30);
// The runtime checks, from this long after the request on (and at least every 300 ms), whether umbra is left.
constexpr clr::DWORD kDetachCheckMs = 300;

std::string hex(clr::HRESULT hr) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", unsigned(hr));
  return text;
}

}  // namespace

std::unique_ptr<AttachSession> AttachSession::open(std::string_view client_data, Config& config,
                                                   std::string& problem) {
  std::optional<AttachSettings> settings = decode_attach_settings(client_data, problem);
  if (!settings) return nullptr;
  std::vector<std::string> warnings;
  const auto& variables = settings->variables;
  config = load_config(
      [&](const char* name) -> std::optional<std::string> {
        auto it = variables.find(name);
        return it == variables.end() ? std::nullopt : std::optional<std::string>(it->second);
      },
      getpid(), warnings);
  std::vector<std::string> entries;
  for (const auto& [name, value] : variables) entries.push_back(name + "=" + value);
  std::vector<const char*> environment;
  for (const auto& entry : entries) environment.push_back(entry.c_str());
  environment.push_back(nullptr);
  for (auto& w : unknown_variable_warnings(environment.data())) warnings.push_back(std::move(w));
  config.attached = true;
  config.descendant = false;
  log::init(config.log_level, settings->control_dir + "/" + kAttachLog);
  for (const auto& w : warnings) log::always(w);
  if (config.mode == Mode::kShadow && variables.count("UMBRA_MODE"))
    log::always("UMBRA_MODE='shadow' needs enter/leave hooks, which the runtime allows only in a profiler loaded "
                "at start-up; attaching in sampled mode");
  config.mode = Mode::kSampled;

  std::string fifo = settings->control_dir + "/" + kAttachControlFifo;
  int control_fd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
  struct stat st {};
  if (control_fd < 0 || fstat(control_fd, &st) != 0 || !S_ISFIFO(st.st_mode) || st.st_uid != geteuid()) {
    problem = "cannot open the launcher's control FIFO " + fifo + " (" +
              (control_fd < 0 ? std::strerror(errno) : "not a FIFO of this user") + ")";
    if (control_fd >= 0) ::close(control_fd);
    log::always(problem + "; not attaching");
    return nullptr;
  }
  int wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd < 0) {
    problem = std::string("no eventfd: ") + std::strerror(errno);
    ::close(control_fd);
    log::always(problem + "; not attaching");
    return nullptr;
  }
  return std::unique_ptr<AttachSession>(new AttachSession(std::move(*settings), control_fd, wake_fd));
}

AttachSession::AttachSession(AttachSettings settings, int control_fd, int wake_fd)
    : settings_(std::move(settings)), control_fd_(control_fd), wake_fd_(wake_fd) {}

AttachSession::~AttachSession() {
  if (thread_.joinable()) thread_.detach();  // only when the process is ending
  ::close(control_fd_);
  ::close(wake_fd_);
}

void AttachSession::start(Session& session, clr::ICorProfilerInfo3& info) {
  thread_ = std::thread([this, &session, &info] { run(session, info); });
}

void AttachSession::on_shutdown() {
  uint64_t one = 1;
  ssize_t ignored = write(wake_fd_, &one, sizeof one);
  (void)ignored;
}

void AttachSession::mark(const char* marker) const {
  int fd = create_private_file(settings_.control_dir + "/" + marker);
  if (fd >= 0) ::close(fd);
}

void AttachSession::wait_for_thread() {
  if (thread_.joinable()) thread_.join();
}

void AttachSession::remove_orphaned_control_dir() const {
  if (!launcher_gone_) return;
  for (const char* entry : {kAttachControlFifo, kAttachLog, kAttachReported, kAttachDetached, kAttachStays})
    unlink((settings_.control_dir + "/" + entry).c_str());
  rmdir(settings_.control_dir.c_str());
}

const char* AttachSession::wait_for_end() {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point started = Clock::now();
  const bool timed = settings_.duration_ms != 0;
  const Clock::time_point deadline = started + std::chrono::milliseconds(settings_.duration_ms);
  bool connected = false;
  for (;;) {
    Clock::time_point now = Clock::now();
    if (timed && now >= deadline) return "attach_duration";
    if (!connected && now >= started + kHelloWait) return "attach_launcher_gone";
    Clock::time_point until = connected ? Clock::time_point::max() : started + kHelloWait;
    if (timed) until = std::min(until, deadline);
    int timeout_ms = until == Clock::time_point::max()
                         ? -1
                         : int(std::chrono::ceil<std::chrono::milliseconds>(until - now).count());
    pollfd fds[2] = {{control_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    if (poll(fds, 2, timeout_ms) < 0 && errno != EINTR) return "attach_launcher_gone";
    if (fds[1].revents & POLLIN) return nullptr;
    if (fds[0].revents & POLLIN) {
      char bytes[64];
      ssize_t n = read(control_fd_, bytes, sizeof bytes);
      for (ssize_t i = 0; i < n; ++i) {
        if (bytes[i] == kAttachStop) return "attach_stopped";
        if (bytes[i] == kAttachHello) connected = true;
      }
      if (n > 0) continue;
    }
    // The last writer closed. Linux reports a hang-up only after a writer has come and gone; should another kernel
    // report one before the launcher connects, the hello is waited for without spinning.
    if (fds[0].revents & (POLLHUP | POLLERR)) {
      if (connected) return "attach_launcher_gone";
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
}

void AttachSession::run(Session& session, clr::ICorProfilerInfo3& info) {
  pthread_setname_np(pthread_self(), "umbra-attach");
  const char* trigger = wait_for_end();
  if (trigger == nullptr) return;
  launcher_gone_ = std::string_view(trigger) == "attach_launcher_gone";
  session.stop_sampling_and_wait();
  session.finish(trigger, true);
  session.join_report_threads();
  mark(kAttachReported);
  std::string stays = session.release_signal_handlers();
  if (stays.empty()) {
    // From here on, this thread calls nothing of the runtime's and only returns (ProfilerDetachSucceeded waits).
    clr::HRESULT hr = info.RequestProfilerDetach(kDetachCheckMs);
    if (clr::succeeded(hr)) return;
    stays = "the runtime refused to detach it (HRESULT " + hex(hr) + ")";
  }
  log::always("staying in the process, inactive: " + stays +
              "; a new attach is refused until the program restarts");
  mark(kAttachStays);
  remove_orphaned_control_dir();
}

}  // namespace umbra
