// `umbra attach` on the real runtime. A web API (tests/apps/WebApi) started without umbra, under load from a client
// that is not profiled (tests/apps/LoadClient), is attached to for a few seconds, detached from, attached to again
// (asking for shadow mode, which attach cannot give), then once more until Ctrl-C, and a last time until the
// program ends. The client sees no failure; the server's output and exit code are those of a run without umbra,
// its requests keep raising NullReferenceExceptions (SIGSEGV) through every attach and detach.
// Then each way an attach cannot happen gives its one line and exit status 2.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <set>
#include <thread>

#include "attach_target.h"
#include "e2e_env.h"
#include "process.h"
#include "process_state.h"
#include "report_query.h"

namespace umbra::testing {
namespace {

// Rounds of arithmetic in each order's pricing: enough to make it a large share of each request, so that samples
// land in Orders.Price (with the default 200 it is well under 1% of a request).
constexpr const char* kRounds = "200000";
constexpr const char* kConnections = "8";
// Every 7th order also takes a NullReferenceException, which the runtime raises from a SIGSEGV: a fault handler
// umbra left behind, pointing into the unloaded library, would end the server at the next one.
constexpr const char* kFaultEvery = "7";

// The web API, started without umbra; its address once it listens.
class Server {
 public:
  Server(const std::string& dir, std::map<std::string, std::string> env = {}) : port_file_(dir + "/address") {
    thread_ = std::thread([this, env] {
      result_ = run_process(app_command("WebApi", {port_file_, kRounds, kFaultEvery}), env, 600,
                            [this](pid_t pid) { pid_.store(pid); });
      ended_.store(true);
    });
    for (int i = 0; i < 2400 && address_.empty(); ++i) {
      std::ifstream in(port_file_);
      std::getline(in, address_);
      if (address_.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  ~Server() {
    if (thread_.joinable()) {
      if (pid_t p = pid_.load()) kill(p, SIGKILL);
      thread_.join();
    }
  }
  pid_t pid() const { return pid_.load(); }
  const std::string& address() const { return address_; }
  bool ended() const { return ended_.load(); }
  // Asks it to end (ASP.NET Core ends gracefully on SIGTERM) and waits for it.
  const ProcessResult& terminate() {
    kill(pid(), SIGTERM);
    return wait();
  }
  const ProcessResult& wait() {
    thread_.join();
    return result_;
  }

 private:
  std::string port_file_, address_;
  std::atomic<pid_t> pid_{0};
  std::atomic<bool> ended_{false};
  ProcessResult result_;
  std::thread thread_;
};

std::vector<std::string> attach_command(pid_t pid, const std::vector<std::string>& options) {
  std::vector<std::string> argv = {launcher_path(), "attach", std::to_string(pid)};
  argv.insert(argv.end(), options.begin(), options.end());
  return argv;
}

// Whether the launcher holds the control FIFO open: it opens it once the runtime has answered the attach.
bool launcher_is_attached(pid_t launcher) {
  std::error_code error;
  for (const auto& fd : std::filesystem::directory_iterator("/proc/" + std::to_string(launcher) + "/fd", error)) {
    std::string target = std::filesystem::read_symlink(fd.path(), error).string();
    if (target.find("/umbra-attach-") != std::string::npos && target.size() > 8 &&
        target.compare(target.size() - 8, 8, "/control") == 0)
      return true;
  }
  return false;
}

void wait_until_attached(pid_t launcher) {
  for (int i = 0; i < 1200 && !launcher_is_attached(launcher); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

// Until the runtime of `pid` (a child of the test, with its environment) listens on its diagnostics socket: before
// that, an attach finds no runtime to attach to. The socket's name carries the process's start time: one left by an
// earlier process with the same pid (killed by another test) is not this one's.
void wait_for_diagnostics_socket(pid_t pid) {
  const char* tmp = std::getenv("TMPDIR");
  std::string directory = tmp && *tmp ? tmp : "/tmp";
  std::optional<launcher::ProcessStat> stat = launcher::read_process_stat(pid);
  std::string name = launcher::diagnostics_socket_name(directory, pid, stat ? stat->start_ticks : 0);
  for (int i = 0; i < 1200; ++i) {
    if (std::filesystem::exists(name)) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

bool library_mapped(pid_t pid) {
  std::string maps = read_file("/proc/" + std::to_string(pid) + "/maps");
  EXPECT_FALSE(maps.empty()) << "the program must still run";
  return maps.find("libumbra.so") != std::string::npos;
}

bool is_pipeline_frame(const std::string& name) { return name.rfind("Microsoft.AspNetCore.", 0) == 0; }

// The threads with samples in Orders.Price under the request pipeline, and those samples.
std::pair<size_t, uint64_t> pricing_threads(const JsonValue& report) {
  std::set<const JsonValue*> threads;
  uint64_t samples = 0;
  for (const auto& thread : threads_of(report)) {
    for_each_path(thread, [&](const std::vector<const JsonValue*>& path) {
      const JsonValue& last = *path.back();
      if (name_of(last) != "Orders.Price" || samples_of(last) == 0) return;
      for (const JsonValue* frame : path)
        if (is_pipeline_frame(name_of(*frame))) {
          threads.insert(&thread);
          samples += samples_of(last);
          break;
        }
    });
  }
  return {threads.size(), samples};
}

// One attach that ended by itself (its duration) or by Ctrl-C: report written, umbra gone from the process.
void expect_attached_and_detached(const ProcessResult& attach, pid_t server, const std::string& prefix,
                                  const std::string& trigger) {
  EXPECT_EQ(attach.exit_code, 0) << attach.err;
  EXPECT_EQ(occurrences(attach.err, "umbra: attached to pid " + std::to_string(server) + " (dotnet) in sampled mode"),
            1u)
      << attach.err;
  EXPECT_EQ(occurrences(attach.err, "umbra: detached from pid " + std::to_string(server) +
                                        " (dotnet); it runs on without umbra"),
            1u)
      << attach.err;
  EXPECT_EQ(occurrences(attach.err, "umbra: report of pid " + std::to_string(server) + ", WebApi.dll"), 1u)
      << attach.err;
  JsonValue report = load_report(prefix + ".json");
  EXPECT_EQ(report.find("mode")->as_string(), "sampled");
  EXPECT_EQ(report.find("pid")->as_uint(), uint64_t(server));
  EXPECT_EQ(report.find("stats")->find("report_trigger")->as_string(), trigger);
  EXPECT_FALSE(library_mapped(server)) << "the runtime unloads libumbra.so once umbra has detached";
}

TEST(Attach, WebApiUnderLoad) {
  std::string dir = scratch_dir("attach");
  Server server(dir);
  ASSERT_FALSE(server.address().empty()) << "the server never said where it listens";
  const pid_t pid = server.pid();
  std::string stop_file = dir + "/stop-load";
  ProcessResult client;
  std::atomic<bool> load_ended{false};
  // When each step ended, in seconds from the load's start: a failure says which step took the time.
  const auto load_started = std::chrono::steady_clock::now();
  std::string steps;
  auto step_done = [&](const std::string& step) {
    std::chrono::duration<double> at = std::chrono::steady_clock::now() - load_started;
    steps += step + " at " + std::to_string(at.count()) + " s" + (load_ended.load() ? " (the load had ended)" : "") +
             "; ";
  };
  std::thread load([&] {
    client = run_process(app_command("LoadClient", {server.address(), "600", kConnections, kRounds, stop_file}));
    load_ended.store(true);
  });
  // The load ends (its stop file) and is waited for on every way out of the test, a failed one included.
  auto stop_load = [&] {
    std::ofstream(stop_file) << "stop\n";
    if (load.joinable()) load.join();
  };
  struct Guard {
    std::function<void()> at_exit;
    ~Guard() { at_exit(); }
  } load_guard{stop_load};
  // A server that ended during an attach: what it said is the only clue to why.
  auto server_runs_on = [&](const char* after) {
    if (!server.ended()) return true;
    stop_load();
    const ProcessResult& served = server.wait();
    ADD_FAILURE() << "the server ended during the " << after << " attach, exit code " << served.exit_code
                  << "; its stderr:\n"
                  << served.err;
    return false;
  };
  // A server that stopped answering: what its threads do is the only clue, and the test ends at once instead of
  // waiting out the timeouts of the attaches to come.
  uint64_t probes = 0;  // requests of the test's own, which the server counts with the client's
  auto server_answers = [&](const char* after) {
    ++probes;
    if (http_get_succeeds(server.address(), "/orders/1", 30000)) return true;
    ADD_FAILURE() << "the server stopped answering after the " << after << " attach; the load client "
                  << (load_ended.load() ? "had ended:\n" + client.out + client.err : std::string("runs on"))
                  << "\nthe server's threads:\n"
                  << describe_threads(pid);
    kill(pid, SIGKILL);
    return false;
  };

  // Attached for a few seconds, then again: the runtime has unloaded umbra, and loads it anew.
  ProcessResult first =
      run_process(attach_command(pid, {"--duration", "4", "--interval-ms", "1", "-o", dir + "/first"}));
  step_done("first attach");
  if (!server_runs_on("first") || !server_answers("first")) return;
  expect_attached_and_detached(first, pid, dir + "/first", "attach_duration");
  ProcessResult second = run_process(
      attach_command(pid, {"--duration", "4", "--interval-ms", "1", "--mode", "shadow", "-o", dir + "/second"}));
  step_done("second attach");
  if (!server_runs_on("second") || !server_answers("second")) return;
  expect_attached_and_detached(second, pid, dir + "/second", "attach_duration");
  EXPECT_EQ(occurrences(second.err, "umbra: UMBRA_MODE='shadow' needs enter/leave hooks, which the runtime allows "
                                    "only in a profiler loaded at start-up; attaching in sampled mode\n"),
            1u)
      << second.err;
  for (const char* name : {"first", "second"}) {
    JsonValue report = load_report(dir + "/" + name + ".json");
    auto [threads, samples] = pricing_threads(report);
    std::printf("[ %s attach ] %lu samples in Orders.Price under the request pipeline, on %zu threads\n", name,
                samples, threads);
    EXPECT_GE(threads, 2u) << name << ": requests are priced on several thread-pool threads, each sampled; "
                           << threads_of(report).size() << " threads in the report, with "
                           << [&] {
                                uint64_t all = 0;
                                for (const auto& thread : threads_of(report)) all += thread_samples_of(thread);
                                return all;
                              }()
                           << " samples; the sampler: " << report.find("stats")->find("sampler")->dump()
                           << "\nsteps: " << steps;
  }

  // Until Ctrl-C.
  auto interrupt = [](pid_t launcher) {
    wait_until_attached(launcher);
    kill(launcher, SIGINT);
  };
  ProcessResult interrupted = run_process(attach_command(pid, {"-o", dir + "/interrupted"}), {}, 300, interrupt);
  step_done("interrupted attach");
  if (!server_runs_on("interrupted") || !server_answers("interrupted")) return;
  expect_attached_and_detached(interrupted, pid, dir + "/interrupted", "attach_stopped");
  EXPECT_EQ(occurrences(interrupted.err, "umbra: stopping: umbra writes the report, then detaches"), 1u)
      << interrupted.err;

  // Until the program ends: the load stops, the client asks the server to shut down, and umbra writes the report
  // at the runtime's shutdown, as a profile started with the program would.
  std::string threads_of_stuck_server;
  ProcessResult ended = run_process(attach_command(pid, {"-o", dir + "/ended"}), {}, 300, [&](pid_t launcher) {
    wait_until_attached(launcher);
    std::ofstream(stop_file) << "stop\n";
    // The client's last requests end within its 30 s timeout; then it asks the server to end.
    for (int i = 0; i < 1800 && !server.ended(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (!server.ended()) {
      // Who failed to end it: the server, or a load client that never asked (its last request unanswered).
      threads_of_stuck_server = describe_threads(pid) + "the load client:\n" + describe_children("LoadClient");
      kill(pid, SIGKILL);
    }
  });
  step_done("ended attach");
  stop_load();
  const ProcessResult& served = server.wait();
  ASSERT_EQ(threads_of_stuck_server, "") << "the server did not end when the client asked it to; its threads above"
                                         << "\nsteps: " << steps << "\nthe load client's exit code "
                                         << client.exit_code << ", its output:\n" << client.out << client.err;
  EXPECT_EQ(ended.exit_code, 0) << ended.err;
  EXPECT_EQ(occurrences(ended.err, "umbra: pid " + std::to_string(pid) + " (dotnet) ended during the attach"), 1u)
      << ended.err;
  EXPECT_EQ(load_report(dir + "/ended.json").find("stats")->find("report_trigger")->as_string(), "shutdown");

  uint64_t requests = 0, failures = 1;
  std::sscanf(client.out.c_str(), "requests=%lu failures=%lu", &requests, &failures);
  EXPECT_EQ(client.exit_code, 0) << client.err;
  EXPECT_EQ(failures, 0u) << client.out;
  EXPECT_GT(requests, 0u) << client.out;
  // What the server would have said without umbra: umbra's messages went to the launcher, not its stderr.
  EXPECT_EQ(served.exit_code, 0) << served.err;
  EXPECT_EQ(served.out, "served " + std::to_string(requests + probes) + "\n");
  EXPECT_EQ(served.err, "");
}

// The core programs run on every runtime umbra supports (.NET 8, 9 and 10): a busy one is attached to twice while
// it works, and ends as it would have without umbra.
TEST(AttachBusyProgram, TwiceWhileItWorks) {
  std::string dir = scratch_dir("attach-busy");
  std::vector<ProcessResult> attaches;
  ProcessResult program = run_process(app_command("Workloads", {"soak", "40"}), {}, 600, [&](pid_t pid) {
    wait_for_diagnostics_socket(pid);
    for (const char* name : {"first", "second"}) {
      attaches.push_back(run_process(attach_command(pid, {"--duration", "1.5", "-o", dir + "/" + name})));
      EXPECT_FALSE(library_mapped(pid)) << name;
    }
  });
  ASSERT_EQ(attaches.size(), 2u);
  for (size_t i = 0; i < attaches.size(); ++i) {
    const ProcessResult& attach = attaches[i];
    std::string prefix = dir + (i == 0 ? "/first" : "/second");
    EXPECT_EQ(attach.exit_code, 0) << attach.err;
    EXPECT_EQ(occurrences(attach.err, "; it runs on without umbra\n"), 1u) << attach.err;
    JsonValue report = load_report(prefix + ".json");
    EXPECT_EQ(report.find("runtime")->as_string(), expected_runtime_version());
    EXPECT_EQ(report.find("stats")->find("report_trigger")->as_string(), "attach_duration");
    uint64_t working = 0;
    for_each_node(report, [&](const JsonValue& node) {
      if (name_of(node) == "Workloads.Program.RunSoak") working += samples_of(node);
    });
    EXPECT_GT(working, 0u) << prefix << ": the soak loop is sampled";
  }
  EXPECT_EQ(program.exit_code, 0) << program.err;
  EXPECT_EQ(program.err, "");
  EXPECT_EQ(occurrences(program.out, "soak t="), 2u) << program.out;
}

TEST(AttachErrors, NoSuchProcess) {
  pid_t gone = fork();
  if (gone == 0) _exit(0);
  waitpid(gone, nullptr, 0);
  ProcessResult attach = run_process(attach_command(gone, {}));
  EXPECT_EQ(attach.exit_code, 2);
  EXPECT_EQ(attach.err, "umbra: no process has pid " + std::to_string(gone) + "\n");
}

TEST(AttachErrors, NotADotNetProcess) {
  ProcessResult attach;
  run_process({"sleep", "600"}, {}, 300, [&](pid_t sleeper) {
    // Until the child has become `sleep` (it is a copy of this test program until its exec).
    for (int i = 0; i < 1000 && read_file("/proc/" + std::to_string(sleeper) + "/comm") != "sleep\n"; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    attach = run_process(attach_command(sleeper, {}));
    EXPECT_EQ(attach.err, "umbra: pid " + std::to_string(sleeper) +
                              " (sleep) is not a .NET program: no .NET runtime is loaded in it\n");
    kill(sleeper, SIGKILL);
  });
  EXPECT_EQ(attach.exit_code, 2);
}

TEST(AttachErrors, DiagnosticsSocketTurnedOff) {
  std::string dir = scratch_dir("attach-no-socket");
  Server server(dir, {{"DOTNET_EnableDiagnostics", "0"}});
  ASSERT_FALSE(server.address().empty());
  ProcessResult attach = run_process(attach_command(server.pid(), {}));
  EXPECT_EQ(attach.exit_code, 2);
  EXPECT_EQ(attach.err, "umbra: pid " + std::to_string(server.pid()) +
                            " (dotnet) runs with its diagnostics socket turned off (DOTNET_EnableDiagnostics=0 in "
                            "its environment); attaching needs it: restart the program without "
                            "DOTNET_EnableDiagnostics=0\n");
  EXPECT_EQ(server.terminate().exit_code, 0);
}

// A program started under umbra: the runtime refuses a second profiler, and the one loaded runs on unharmed.
TEST(AttachErrors, ProfilerAlreadyLoaded) {
  std::string dir = scratch_dir("attach-already-loaded");
  std::map<std::string, std::string> env = profiler_env(dir + "/running");
  env["UMBRA_MODE"] = "sampled";
  Server server(dir, env);
  ASSERT_FALSE(server.address().empty());
  ProcessResult attach = run_process(attach_command(server.pid(), {"-o", dir + "/refused"}));
  EXPECT_EQ(attach.exit_code, 2);
  EXPECT_EQ(attach.err, "umbra: pid " + std::to_string(server.pid()) +
                            " (dotnet) already has a profiler loaded (CORPROF_E_PROFILER_ALREADY_ACTIVE, 0x8013136A): "
                            "it was started under a profiler (umbra run, say), or another tool attached one\n");
  EXPECT_FALSE(std::filesystem::exists(dir + "/refused.json"));
  const ProcessResult& served = server.terminate();
  EXPECT_EQ(served.exit_code, 0) << served.err;
  EXPECT_EQ(load_report(dir + "/running.json").find("mode")->as_string(), "sampled");
}

// Another user's process: the launcher runs as nobody (needs root to arrange).
TEST(AttachErrors, PermissionDenied) {
  if (geteuid() != 0 || access("/usr/bin/setpriv", X_OK) != 0) GTEST_SKIP() << "needs root and setpriv";
  ProcessResult attach;
  run_process({"sleep", "600"}, {}, 300, [&](pid_t sleeper) {
    std::vector<std::string> argv = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
    for (const std::string& a : attach_command(sleeper, {"-o", "/tmp/never"})) argv.push_back(a);
    attach = run_process(argv);
    kill(sleeper, SIGKILL);
    EXPECT_EQ(attach.err, "umbra: permission denied: pid " + std::to_string(sleeper) +
                              " belongs to another user; attach as that user (or as root)\n");
  });
  EXPECT_EQ(attach.exit_code, 2);
}

}  // namespace
}  // namespace umbra::testing
