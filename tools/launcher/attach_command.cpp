#include "attach_command.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <thread>

#include "attach_target.h"
#include "clr/guids.h"
#include "diagnostics_ipc.h"
#include "output_directory.h"
#include "program_user.h"
#include "profiler/attach_settings.h"
#include "profiler/options.h"
#include "report/display_text.h"
#include "report_listing.h"

namespace umbra::launcher {
namespace {

// The runtime's wait for a concurrent garbage collection to end before it loads the profiler.
constexpr uint32_t kAttachTimeoutMs = 10000;
// The whole exchange on the socket: the answer comes once umbra's InitializeForAttach has returned.
constexpr int kReplyTimeoutMs = 30000;
// The runtime looks every 300 ms at first, then every few seconds, whether umbra can be unloaded.
constexpr auto kDetachWait = std::chrono::seconds(30);
constexpr auto kPollInterval = std::chrono::milliseconds(50);
// From umbra's last callback to the runtime's unloading it: a moment, unless something holds the library.
constexpr auto kUnloadWait = std::chrono::seconds(5);
// The runtime's answer while it is still starting, and how long the launcher asks again.
constexpr uint32_t kNotYetAvailable = 0x8013135B;
constexpr auto kStartingWait = std::chrono::seconds(10);

volatile sig_atomic_t g_stop_signal = 0;
void on_stop_signal(int signo) { g_stop_signal = signo; }

void say(const std::string& line) { std::fprintf(stderr, "umbra: %s\n", line.c_str()); }

bool exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

// The private directory the launcher and umbra talk through, made and used by the program's user
// (program_user.h); every entry is reached through the directory's descriptor, without following links, and the log
// and FIFO are used only as what they should be. Removed with what is in it.
class ControlDirectory {
 public:
  ~ControlDirectory() {
    if (fd_ < 0) return;
    for (const char* entry : {kAttachControlFifo, kAttachLog, kAttachReported, kAttachDetached, kAttachStays})
      unlinkat(fd_, entry, 0);
    close(fd_);
    rmdir(path_.c_str());
  }
  // Made under $TMPDIR (or /tmp), mode 0700, with the FIFO in it. "" on success, else why not.
  std::string make() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/umbra-attach-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) return "cannot make a directory like " + pattern + ": " + strerror(errno);
    path_ = pattern;
    fd_ = open(path_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd_ < 0) return "cannot open the directory " + path_ + ": " + strerror(errno);
    if (mkfifoat(fd_, kAttachControlFifo, 0600) != 0)
      return "cannot make the FIFO " + entry(kAttachControlFifo) + ": " + strerror(errno);
    return "";
  }
  std::string entry(const char* name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }
  bool has(const char* name) const {
    struct stat st {};
    return fstatat(fd_, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
  }
  // The entry opened without following a link or waiting for a FIFO's other end, if it is of `type` (S_IFREG,
  // S_IFIFO) and this user's; -1 otherwise (errno EINVAL when it is a link or something else).
  int open_as(const char* name, int flags, mode_t type) const {
    int fd = openat(fd_, name, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 && errno == ELOOP) errno = EINVAL;  // a link
    struct stat st {};
    if (fd >= 0 && (fstat(fd, &st) != 0 || (st.st_mode & S_IFMT) != type || st.st_uid != geteuid())) {
      close(fd);
      errno = EINVAL;
      return -1;
    }
    return fd;
  }

 private:
  std::string path_;
  int fd_ = -1;
};

// Copies what umbra writes to its log to the launcher's stderr, a line at a time, each through display_text(): the
// log is written inside the program, which may put anything there.
class LogRelay {
 public:
  explicit LogRelay(const ControlDirectory& control) : control_(control) {}
  ~LogRelay() {
    if (fd_ >= 0) close(fd_);
  }
  void pump() {
    if (fd_ < 0 && !refused_) {
      fd_ = control_.open_as(kAttachLog, O_RDONLY, S_IFREG);
      if (fd_ < 0 && errno == EINVAL) {
        refused_ = true;
        say("umbra's log in " + control_.path() + " is not a regular file of this user; it is not shown");
      }
    }
    if (fd_ < 0) return;
    char buffer[4096];
    ssize_t n;
    while ((n = read(fd_, buffer, sizeof buffer)) > 0) pending_.append(buffer, size_t(n));
    size_t start = 0;
    for (size_t nl; (nl = pending_.find('\n', start)) != std::string::npos; start = nl + 1)
      show(std::string_view(pending_).substr(start, nl - start));
    pending_.erase(0, start);
  }
  // The last line, also when umbra did not end it.
  void finish() {
    pump();
    if (!pending_.empty()) show(pending_);
    pending_.clear();
  }

 private:
  static void show(std::string_view line) { std::fprintf(stderr, "%s\n", display_text(line, 8192).c_str()); }

  const ControlDirectory& control_;
  int fd_ = -1;
  bool refused_ = false;
  std::string pending_;
};

// The settings umbra reads: the launcher's own UMBRA_* variables (as `umbra run` passes them on to the program),
// then the options given, then the prefix, made absolute (the program's working directory is not the launcher's).
AttachSettings settings_for(const AttachRequest& request, const std::string& prefix, const std::string& control) {
  AttachSettings settings;
  settings.duration_ms = request.duration_ms;
  settings.control_dir = control;
  for (const Option& option : options()) {
    if (!option.rule.store || std::string(option.variable) == "UMBRA_LAUNCHED_PID") continue;
    if (const char* value = std::getenv(option.variable)) settings.variables[option.variable] = value;
  }
  for (const auto& [name, value] : request.environment) settings.variables[name] = value;
  settings.variables["UMBRA_OUTPUT"] = prefix;
  return settings;
}

std::string hex(uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08X", value);
  return text;
}

// The one line for an attach the runtime refused.
std::string refusal(const AttachTarget& target, long long pid, uint32_t hresult) {
  std::string who = "pid " + std::to_string(pid) + " (" + target.name + ")";
  std::string name = hresult_name(hresult);
  std::string code = (name.empty() ? "" : name + ", ") + hex(hresult);
  if (hresult == 0x8013136A)
    return who + " already has a profiler loaded (" + code +
           "): it was started under a profiler (umbra run, say), or another tool attached one";
  if (hresult == 0x80131367) return "a profiler is still detaching from " + who + " (" + code + "); try again shortly";
  if (hresult == kNotYetAvailable) return "the runtime of " + who + " is still starting (" + code + "); try again";
  return "the runtime of " + who + " did not load umbra (" + code + ")";
}

// Whether the process attached to still runs: a zombie has ended, and a later process may have taken its pid.
bool still_running(long long pid, unsigned long long start_ticks) {
  std::optional<ProcessStat> stat = read_process_stat(pid);
  return stat && stat->state != 'Z' && stat->state != 'X' && stat->start_ticks == start_ticks;
}

// The attach, as the program's user: everything from the control directory on.
int attach_as_program_user(const AttachRequest& request, const std::string& library_path, const AttachTarget& target) {
  const long long pid = request.pid;
  std::string who = "pid " + std::to_string(pid) + " (" + target.name + ")";
  std::optional<std::string> asked = request.output_prefix;
  if (!asked && std::getenv("UMBRA_OUTPUT")) asked = std::getenv("UMBRA_OUTPUT");
  std::string prefix = absolute_path(asked.value_or("umbra-" + std::to_string(pid)));
  if (std::string problem = make_output_directory(prefix); !problem.empty())
    say("cannot make the directory of '" + prefix + "' (" + problem +
        "); the reports go to a new directory in $TMPDIR");

  ControlDirectory control;
  if (std::string problem = control.make(); !problem.empty()) {
    say(problem);
    return 2;
  }
  std::string error;
  std::optional<std::string> client_data = encode_attach_settings(settings_for(request, prefix, control.path()), error);
  std::optional<std::vector<uint8_t>> message =
      client_data ? attach_profiler_message(clr::CLSID_UmbraProfiler, library_path, *client_data, kAttachTimeoutMs,
                                            error)
                  : std::nullopt;
  if (!message) {
    say("cannot attach: " + error);
    return 2;
  }
  const unsigned long long started = read_process_stat(pid).value_or(ProcessStat{}).start_ticks;
  // From here on Ctrl-C (or SIGTERM, SIGHUP) stops the profile: once attached, umbra is told on the FIFO.
  for (int signo : {SIGINT, SIGTERM, SIGHUP}) signal(signo, on_stop_signal);
  int error_number = 0;
  LogRelay relay(control);
  const PeerCheck runtime{pid_t(pid), target.uid};
  std::optional<IpcReply> reply =
      send_ipc_message(target.socket_path, *message, runtime, kReplyTimeoutMs, error_number, error);
  // A program that has just started has its socket before its runtime runs: the runtime then loads nothing and
  // says so; asked again a little later, it answers.
  auto starting_until = std::chrono::steady_clock::now() + kStartingWait;
  while (reply && !reply->ok && reply->hresult == kNotYetAvailable &&
         std::chrono::steady_clock::now() < starting_until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    reply = send_ipc_message(target.socket_path, *message, runtime, kReplyTimeoutMs, error_number, error);
  }
  if (!reply || !reply->ok || reply->hresult != 0) relay.finish();  // what umbra said while it refused, if it did
  if (!reply) {
    if (error_number == EACCES || error_number == EPERM)
      say("permission denied: cannot use the diagnostics socket of " + who + " (" + error + ")");
    else if (error_number == ECONNREFUSED)
      say("the diagnostics socket of " + who + " does not answer (" + error + "); is the program ending?");
    else
      say("cannot attach to " + who + ": " + error);
    return 2;
  }
  if (!reply->ok || reply->hresult != 0) {
    say(refusal(target, pid, reply->hresult));
    return 2;
  }

  signal(SIGPIPE, SIG_IGN);  // the FIFO's reader is gone once umbra has detached
  int fifo = control.open_as(kAttachControlFifo, O_WRONLY, S_IFIFO);
  if (fifo >= 0) {
    ssize_t ignored = write(fifo, &kAttachHello, 1);
    (void)ignored;
  } else {
    say("cannot open the control FIFO (" + std::string(strerror(errno)) + "): Ctrl-C cannot end the profile early");
  }
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%g", request.duration_ms / 1000.0);
  say("attached to " + who + " in sampled mode; " +
      (request.duration_ms ? "profiling for " + std::string(seconds) + " s (Ctrl-C ends it sooner)"
                           : std::string("profiling until Ctrl-C")));

  bool reported = false, stop_sent = false;
  while (!(reported = control.has(kAttachReported))) {
    relay.pump();
    if (g_stop_signal && !stop_sent) {
      ssize_t ignored = fifo >= 0 ? write(fifo, &kAttachStop, 1) : 0;
      (void)ignored;
      stop_sent = true;
      for (int signo : {SIGINT, SIGTERM, SIGHUP}) signal(signo, SIG_DFL);  // a second Ctrl-C ends the launcher
      say("stopping: umbra writes the report, then detaches (the program runs on)");
    }
    if (!still_running(pid, started)) break;
    std::this_thread::sleep_for(kPollInterval);
  }
  relay.finish();
  std::fputs(report_listing(prefix, 0).c_str(), stderr);
  if (!reported) {
    // umbra writes the report when the program ends normally (Shutdown), as a profile started with it would.
    bool written = exists(prefix + ".json") || exists(prefix + ".txt");
    say(who + (written ? " ended during the attach" : " ended before umbra could write a report"));
    if (fifo >= 0) close(fifo);
    return written ? 0 : 1;
  }
  auto deadline = std::chrono::steady_clock::now() + kDetachWait;
  // umbra says it has detached from inside the runtime's last call to it; the runtime unloads it after that call
  // returns, and refuses a new attach until it has.
  char resolved[PATH_MAX];
  const std::string library = realpath(library_path.c_str(), resolved) ? resolved : library_path;
  std::optional<std::chrono::steady_clock::time_point> detached_at;
  for (;;) {
    relay.pump();
    if (!detached_at && control.has(kAttachDetached)) detached_at = std::chrono::steady_clock::now();
    if (detached_at && maps_file(pid, library) != true) {
      say("detached from " + who + "; it runs on without umbra");
      break;
    }
    // A thread-local destructor still registered keeps a library mapped until its thread ends.
    if (detached_at && std::chrono::steady_clock::now() > *detached_at + kUnloadWait) {
      say("detached from " + who + "; it runs on without umbra (its runtime has not unloaded " + library + " yet)");
      break;
    }
    if (control.has(kAttachStays)) break;  // the log has said why
    if (!still_running(pid, started)) {
      say(who + " ended while umbra was detaching");
      break;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      say("the runtime has not detached umbra from " + who + " yet; a new attach is refused until it has");
      break;
    }
    std::this_thread::sleep_for(kPollInterval);
  }
  relay.finish();
  if (fifo >= 0) close(fifo);
  return 0;
}

}  // namespace

int run_attach_command(const AttachRequest& request, const std::string& library_path) {
  // Root reads the program's /proc entries alone; the socket in its $TMPDIR is looked for as its user.
  ProcessBasics owner = process_basics(request.pid, "attach");
  if (!owner.problem.empty()) {
    say(owner.problem);
    return 2;
  }
  return run_as_program_user(owner.uid, owner.gid, owner.groups, [&] {
    AttachTarget target = find_attach_target(request.pid);
    if (!target.problem.empty()) {
      say(display_text(target.problem, 4096));  // it may hold the program's $TMPDIR
      return 2;
    }
    return attach_as_program_user(request, library_path, target);
  });
}

}  // namespace umbra::launcher
