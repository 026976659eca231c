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
#include "profiler/attach_settings.h"
#include "profiler/options.h"
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

// The private directory the launcher and umbra talk through; removed with what is in it.
class ControlDirectory {
 public:
  ~ControlDirectory() {
    if (path_.empty()) return;
    for (const char* entry : {kAttachControlFifo, kAttachLog, kAttachReported, kAttachDetached, kAttachStays})
      unlink((path_ + "/" + entry).c_str());
    rmdir(path_.c_str());
  }
  // Made under $TMPDIR (or /tmp), mode 0700, with the FIFO in it; handed to the program's user when the launcher
  // runs as root for another user's program. "" on success, else why not.
  std::string make(const AttachTarget& target) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/umbra-attach-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) return "cannot make a directory like " + pattern + ": " + strerror(errno);
    path_ = pattern;
    std::string fifo = path_ + "/" + kAttachControlFifo;
    if (mkfifo(fifo.c_str(), 0600) != 0) return "cannot make the FIFO " + fifo + ": " + strerror(errno);
    if (geteuid() != target.uid && (chown(path_.c_str(), target.uid, target.gid) != 0 ||
                                    chown(fifo.c_str(), target.uid, target.gid) != 0))
      return "cannot hand " + path_ + " to the program's user " + std::to_string(target.uid) + ": " + strerror(errno);
    return "";
  }
  std::string entry(const char* name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Copies what umbra writes to its log to the launcher's stderr, as it comes.
class LogRelay {
 public:
  explicit LogRelay(std::string path) : path_(std::move(path)) {}
  ~LogRelay() {
    if (file_) std::fclose(file_);
  }
  void pump() {
    if (file_ == nullptr) file_ = std::fopen(path_.c_str(), "re");
    if (file_ == nullptr) return;
    char buffer[4096];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, file_)) > 0) std::fwrite(buffer, 1, n, stderr);
    std::clearerr(file_);  // at the end for now; umbra may write more
    std::fflush(stderr);
  }

 private:
  std::string path_;
  FILE* file_ = nullptr;
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

}  // namespace

int run_attach_command(const AttachRequest& request, const std::string& library_path) {
  const long long pid = request.pid;
  AttachTarget target = find_attach_target(pid);
  if (!target.problem.empty()) {
    say(target.problem);
    return 2;
  }
  std::string who = "pid " + std::to_string(pid) + " (" + target.name + ")";
  std::optional<std::string> asked = request.output_prefix;
  if (!asked && std::getenv("UMBRA_OUTPUT")) asked = std::getenv("UMBRA_OUTPUT");
  std::string prefix = absolute_path(asked.value_or("umbra-" + std::to_string(pid)));
  if (std::string problem = make_output_directory(prefix); !problem.empty())
    say("cannot make the directory of '" + prefix + "' (" + problem +
        "); the reports go to a new directory in $TMPDIR");

  ControlDirectory control;
  if (std::string problem = control.make(target); !problem.empty()) {
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
  LogRelay relay(control.entry(kAttachLog));
  std::optional<IpcReply> reply = send_ipc_message(target.socket_path, *message, kReplyTimeoutMs, error_number, error);
  // A program that has just started has its socket before its runtime runs: the runtime then loads nothing and
  // says so; asked again a little later, it answers.
  auto starting_until = std::chrono::steady_clock::now() + kStartingWait;
  while (reply && !reply->ok && reply->hresult == kNotYetAvailable &&
         std::chrono::steady_clock::now() < starting_until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    reply = send_ipc_message(target.socket_path, *message, kReplyTimeoutMs, error_number, error);
  }
  relay.pump();  // what umbra said while it refused, if it did
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
  int fifo = open(control.entry(kAttachControlFifo).c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
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
  while (!(reported = exists(control.entry(kAttachReported)))) {
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
  relay.pump();
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
    if (!detached_at && exists(control.entry(kAttachDetached))) detached_at = std::chrono::steady_clock::now();
    if (detached_at && maps_file(pid, library) != true) {
      say("detached from " + who + "; it runs on without umbra");
      break;
    }
    // A thread-local destructor still registered keeps a library mapped until its thread ends.
    if (detached_at && std::chrono::steady_clock::now() > *detached_at + kUnloadWait) {
      say("detached from " + who + "; it runs on without umbra (its runtime has not unloaded " + library + " yet)");
      break;
    }
    if (exists(control.entry(kAttachStays))) break;  // the log has said why
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
  if (fifo >= 0) close(fifo);
  return 0;
}

}  // namespace umbra::launcher
