// Hostile conditions on the real runtime: another local user who can create files where reports go, signals
// forged by another process, a terminal's signals, stray files beside the reports, names chosen to forge output,
// and an address-space limit. Each test reproduces the attack or the fault and checks the program is unharmed.
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "e2e_env.h"
#include "process.h"
#include "report_query.h"

namespace umbra::testing {
namespace {

namespace fs = std::filesystem;

void write_file(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// A directory anyone may write to, as /tmp is (sticky, 1777).
std::string shared_directory(const std::string& test) {
  std::string dir = scratch_dir(test) + "/shared";
  fs::create_directories(dir);
  chmod(dir.c_str(), 01777);
  return dir;
}

// A link planted by another user (nobody), pointing at a file the profiled program's user owns.
void plant_link(const std::string& at, const std::string& target) {
  ASSERT_EQ(symlink(target.c_str(), at.c_str()), 0) << at;
  lchown(at.c_str(), 65534, 65534);
}

mode_t mode_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

TEST(HostileConditions, LinksPlantedAtTheReportsTemporaryAndFinalNamesAreNotFollowed) {
  std::string dir = shared_directory("hostile_links");
  std::string victim = scratch_dir("hostile_links_victim") + "/precious";
  write_file(victim, "precious\n");
  for (const char* name : {"/r.json.tmp", "/r.txt.tmp", "/r.json"}) plant_link(dir + name, victim);
  ProcessResult r = run_process(app_command("ExitPaths", {"return"}), profiler_env(dir + "/r"));
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_EQ(read_file(victim), "precious\n");
  EXPECT_FALSE(fs::is_symlink(dir + "/r.json"));
  JsonValue report = load_report(dir + "/r.json");
  const JsonValue* main = thread_with_root(report, "ExitPaths.Program.Main");
  ASSERT_NE(main, nullptr);
  EXPECT_EQ(total_calls(roots_of(*main), "ExitPaths.Program.Counted"), 42u);
  EXPECT_EQ(mode_of(dir + "/r.json"), 0644u) << "the mode the user's umask (022) gives";
  EXPECT_EQ(mode_of(dir + "/r.txt"), 0644u);
}

TEST(HostileConditions, TheFallbackIsANewDirectoryOnlyTheUserCanEnter) {
  std::string dir = scratch_dir("hostile_fallback");
  std::string tmp = shared_directory("hostile_fallback_tmp");
  auto env = profiler_env("/proc/nonexistent/r");
  env["TMPDIR"] = tmp;
  ProcessResult r = run_process(app_command("ExitPaths", {"return"}), env);
  EXPECT_EQ(r.exit_code, 5) << r.err;
  std::vector<fs::path> private_dirs;
  for (const auto& entry : fs::directory_iterator(tmp)) {
    EXPECT_TRUE(entry.is_directory()) << "nothing but the private directory in $TMPDIR: " << entry.path();
    private_dirs.push_back(entry.path());
  }
  ASSERT_EQ(private_dirs.size(), 1u) << r.err;
  EXPECT_EQ(mode_of(private_dirs[0].string()), 0700u);
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(private_dirs[0])) {
    ++files;
    EXPECT_EQ(mode_of(entry.path().string()), 0600u) << entry.path();
    EXPECT_EQ(occurrences(r.err, "wrote " + entry.path().string() + " instead"), 1u) << r.err;
  }
  EXPECT_EQ(files, 2u) << r.err;
}

// umbra report takes no name from the (untrusted) file it reads: a pid of its choosing does not place the fallback.
TEST(HostileConditions, UmbraReportsFallbackIgnoresThePidInTheFile) {
  std::string dir = scratch_dir("hostile_report_fallback");
  std::string tmp = shared_directory("hostile_report_fallback_tmp");
  std::string input = dir + "/in.json";
  write_file(input, R"({"schema":"umbra-report/1","mode":"sampled","pid":4242,"runtime":"10.0","duration_ns":1,)"
                    R"("threads":[],"stats":{}})");
  std::string victim = dir + "/victim";
  write_file(victim, "precious\n");
  plant_link(tmp + "/umbra-4242.txt", victim);
  plant_link(tmp + "/umbra-4242.txt.tmp", victim);
  ProcessResult r = run_process({launcher_path(), "report", input, "-o", "/proc/nonexistent/x"}, {{"TMPDIR", tmp}});
  EXPECT_EQ(read_file(victim), "precious\n");
  EXPECT_NE(r.err.find("wrote " + tmp + "/umbra-"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("wrote " + tmp + "/umbra-4242.txt "), std::string::npos) << r.err;
}

// The log of a process the program starts (<prefix>.<pid>.log) is created new: a link there is not followed.
TEST(HostileConditions, ALinkAtADescendantsLogIsNotFollowed) {
  std::string dir = shared_directory("hostile_log");
  std::string victim = scratch_dir("hostile_log_victim") + "/precious";
  write_file(victim, "precious\n");
  // Descendants' pids are not known beforehand: plant links for every pid the next few hundred forks may take.
  pid_t next = getpid();
  {
    std::ifstream last("/proc/sys/kernel/ns_last_pid");
    last >> next;
  }
  for (pid_t p = next + 1; p < next + 400; ++p) plant_link(dir + "/r." + std::to_string(p) + ".log", victim);
  auto env = profiler_env(dir + "/r");
  env["UMBRA_LAUNCHED_PID"] = "1";  // as if a launcher had started this process: it and its children log to files
  env["UMBRA_LOG_LEVEL"] = "info";
  ProcessResult r = run_process(app_command("ExitPaths", {"return"}), env);
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_EQ(read_file(victim), "precious\n");
}

// Any process of the same user can queue a signal with any value; the profiled program must not notice.
TEST(HostileConditions, ForgedNativeCaptureSignalsAreIgnored) {
  std::string dir = scratch_dir("hostile_forged_signal");
  auto env = profiler_env(dir + "/r");
  env["UMBRA_MODE"] = "sampled";
  env["UMBRA_TEST_NATIVE_LIB"] = native_test_library();
  int forged = 0;
  ProcessResult r = run_process(app_command("NativeMix", {"spin"}), env, 120, [&](pid_t pid) {
    // umbra's capture signal is the runtime's activation signal, SIGRTMIN; forged while umbra samples (its threads
    // are there) and the program spins.
    auto umbra_runs = [&] {
      std::error_code error;
      for (const auto& task : fs::directory_iterator("/proc/" + std::to_string(pid) + "/task", error))
        if (read_file(task.path().string() + "/comm").rfind("umbra-", 0) == 0) return true;
      return false;
    };
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!umbra_runs() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    for (int round = 0; round < 50; ++round) {
      for (uintptr_t value : {uintptr_t(0x10), uintptr_t(0xdead0000beef), uintptr_t(1) << 32, uintptr_t(0)}) {
        siginfo_t info{};
        info.si_signo = SIGRTMIN;
        info.si_code = SI_QUEUE;
        info.si_pid = pid;  // claims to come from the process itself
        info.si_uid = getuid();
        info.si_value.sival_ptr = reinterpret_cast<void*>(value);
        if (syscall(SYS_rt_sigqueueinfo, pid, SIGRTMIN, &info) == 0) ++forged;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
  EXPECT_EQ(forged, 200) << "the program ended before all were sent";
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "spin True\n");
  EXPECT_TRUE(fs::exists(dir + "/r.json")) << r.err;
}

TEST(HostileConditions, AStrayFileNameBesideTheReportsIsNotADescendantsReport) {
  std::string dir = scratch_dir("hostile_stray_name");
  write_file(dir + "/r.99999999999999999999999.json", "{}");
  write_file(dir + "/r.12345678901.json", "{}");
  ProcessResult r = run_process(with_app({launcher_path(), "run", "-o", dir + "/r", "--"}, "ExitPaths", {"return"}));
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_NE(r.err.find("umbra: report of pid "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("): " + dir + "/r.json"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("descendant"), std::string::npos) << r.err;
}

// The launcher under a terminal of its own (a pty), as a user runs it.
struct Terminal {
  pid_t pid = -1;
  int master = -1;
  std::string seen;

  // Starts `argv` on a new pty; signals in `ignored` are ignored when it starts (as nohup does).
  Terminal(const std::vector<std::string>& argv, const std::vector<int>& ignored) {
    pid = forkpty(&master, nullptr, nullptr, nullptr);
    if (pid == 0) {
      for (int sig : ignored) signal(sig, SIG_IGN);
      std::vector<char*> args;
      for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      execvp(args[0], args.data());
      _exit(127);
    }
  }
  ~Terminal() {
    if (pid > 0) kill(pid, SIGKILL), waitpid(pid, nullptr, 0);
    if (master >= 0) close(master);
  }
  // Reads what the terminal shows until `text` appears; false after 60 s.
  bool wait_for(const std::string& text) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (seen.find(text) == std::string::npos) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      pollfd fd{master, POLLIN, 0};
      if (poll(&fd, 1, 100) <= 0) continue;
      char buf[4096];
      ssize_t n = read(master, buf, sizeof buf);
      if (n <= 0) return false;
      seen.append(buf, size_t(n));
    }
    return true;
  }
  // Reads what is left to show and reaps the launcher: its exit status (128 + signal when killed).
  int finish() {
    wait_for("\x01never");  // until the pty closes (read fails) or the time runs out
    int status = 0;
    waitpid(pid, &status, 0);
    pid = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
};

std::vector<std::string> launch_signals_program(const std::string& prefix) {
  return with_app({launcher_path(), "run", "-o", prefix, "--"}, "ExitPaths", {"signals"});
}

TEST(HostileConditions, CtrlCInATerminalReachesTheProgramOnce) {
  std::string dir = scratch_dir("hostile_ctrl_c");
  Terminal t(launch_signals_program(dir + "/r"), {});
  ASSERT_TRUE(t.wait_for("ready")) << t.seen;
  ASSERT_EQ(write(t.master, "\x03", 1), 1);  // the terminal's interrupt character
  ASSERT_TRUE(t.wait_for("cancel key press 1")) << t.seen;
  // A second delivery would follow within microseconds of the first; half a second is ample.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ASSERT_EQ(write(t.master, "done\n", 5), 5);
  ASSERT_TRUE(t.wait_for("cancel key presses: ")) << t.seen;
  EXPECT_EQ(t.finish(), 5) << t.seen;
  EXPECT_NE(t.seen.find("cancel key presses: 1"), std::string::npos) << t.seen;
  EXPECT_EQ(t.seen.find("cancel key press 2"), std::string::npos) << t.seen;
}

TEST(HostileConditions, ASignalTheLauncherWasStartedToIgnoreStaysIgnored) {
  std::string dir = scratch_dir("hostile_nohup");
  Terminal t(launch_signals_program(dir + "/r"), {SIGHUP});
  ASSERT_TRUE(t.wait_for("ready")) << t.seen;
  ASSERT_EQ(kill(t.pid, SIGHUP), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // a forwarded SIGHUP would end the program by now
  ASSERT_EQ(write(t.master, "done\n", 5), 5);
  EXPECT_TRUE(t.wait_for("cancel key presses: 0")) << t.seen;
  EXPECT_EQ(t.finish(), 5) << t.seen;
  EXPECT_TRUE(fs::exists(dir + "/r.json")) << t.seen;
}

TEST(HostileConditions, ASignalSentToTheLauncherAloneIsForwardedOnce) {
  std::string dir = scratch_dir("hostile_forward");
  Terminal t(launch_signals_program(dir + "/r"), {});
  ASSERT_TRUE(t.wait_for("ready")) << t.seen;
  ASSERT_EQ(kill(t.pid, SIGINT), 0);  // `kill -INT <launcher>`: only the launcher gets it
  ASSERT_TRUE(t.wait_for("cancel key press 1")) << t.seen;
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ASSERT_EQ(write(t.master, "done\n", 5), 5);
  EXPECT_TRUE(t.wait_for("cancel key presses: 1")) << t.seen;
  EXPECT_EQ(t.finish(), 5) << t.seen;
}

// A name may hold anything: newlines, terminal escapes, U+2028, HTML. No output may be forged by one.
TEST(HostileConditions, NamesCannotForgeOutput) {
  std::string dir = scratch_dir("hostile_names");
  ProcessResult r =
      run_process(with_app({launcher_path(), "run", "-o", dir + "/r", "--format", "json,text,collapsed,html", "--"},
                           "ExitPaths", {"hostile-names"}));
  ASSERT_EQ(r.exit_code, 5) << r.err;
  // The JSON keeps the names exactly.
  JsonValue report = load_report(dir + "/r.json");
  const JsonValue* worker = thread_named(report, "evil\n=== thread \"forged\"\x1b]0;pwned\a\x1b[2J\r\u2028\u0085end");
  ASSERT_NE(worker, nullptr);
  EXPECT_EQ(total_calls(roots_of(*worker), "ExitPaths.Program.Counted"), 42u);
  const JsonValue* main = thread_with_root(report, "ExitPaths.Program.Main");
  ASSERT_NE(main, nullptr);
  const std::string hostile_method = "Hostile.Names.Evil\n999 \u2028<!--<script>\x1b[2J;x</script>";
  EXPECT_EQ(total_calls(roots_of(*main), hostile_method), 3u);

  auto no_forging_characters = [](const std::string& text, const std::string& what) {
    for (size_t i = 0; i < text.size(); ++i) {
      unsigned char c = static_cast<unsigned char>(text[i]);
      ASSERT_FALSE((c < 0x20 && c != '\n') || c == 0x7f) << what << ": byte " << int(c) << " at " << i;
      ASSERT_FALSE(c == 0xc2 && i + 1 < text.size() && (unsigned char)text[i + 1] >= 0x80 &&
                   (unsigned char)text[i + 1] <= 0x9f)
          << what << ": a C1 control at " << i;
      ASSERT_FALSE(text.compare(i, 3, "\u2028") == 0 || text.compare(i, 3, "\u2029") == 0)
          << what << ": a line separator at " << i;
    }
  };
  std::string text = read_file(dir + "/r.txt");
  no_forging_characters(text, "text report");
  EXPECT_EQ(occurrences(text, "\n=== thread"), threads_of(report).size()) << text;

  std::string collapsed = read_file(dir + "/r.collapsed");
  no_forging_characters(collapsed, "collapsed stacks");
  uint64_t total = 0;
  std::istringstream lines(collapsed);
  for (std::string line; std::getline(lines, line);) {
    size_t space = line.rfind(' ');
    ASSERT_NE(space, std::string::npos) << line;
    total += std::stoull(line.substr(space + 1));
  }
  uint64_t self_samples = 0;
  for_each_node(report, [&](const JsonValue& node) {
    if (const JsonValue* s = node.find("self_samples")) self_samples += s->as_uint();
  });
  EXPECT_EQ(total, self_samples) << collapsed;

  std::string html = read_file(dir + "/r.html");
  size_t open = html.find("<script id=\"umbra-data\" type=\"application/json\">");
  ASSERT_NE(open, std::string::npos);
  size_t data = html.find('>', open) + 1;
  size_t close = html.find("</script>", data);
  EXPECT_EQ(html.substr(data, close - data).find('<'), std::string::npos);
}

// Under an address-space limit no thread with a large stack can be had: a deep report is refused with a reason,
// never read on a small stack that it would overflow.
TEST(HostileConditions, ADeepReportUnderAnAddressSpaceLimitIsRefusedNotACrash) {
  std::string dir = scratch_dir("hostile_ulimit");
  constexpr int kDepth = 100000;
  std::string node_open = R"({"name":"D","kind":"managed","module":"m","calls":null,"samples":1,"self_samples":0,)"
                          R"("total_ns":null,"self_ns":null,"tail_entries":0,"children":[)";
  std::string json = R"({"schema":"umbra-report/1","mode":"sampled","pid":1,"runtime":"10.0","duration_ns":1,)"
                     R"("threads":[{"os_tid":1,"managed_id":null,"name":null,"exited":true,"managed_samples":1,)"
                     R"("native_samples":0,"roots":[)";
  for (int i = 0; i < kDepth; ++i) json += node_open;
  for (int i = 0; i < kDepth; ++i) json += "]}";
  json += R"(]}],"stats":{}})";
  write_file(dir + "/deep.json", json);
  ProcessResult r = run_process(
      {"sh", "-c", "ulimit -v 262144 && exec \"$0\" report \"$1\" --format text", launcher_path(), dir + "/deep.json"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("no thread with a 512 MiB stack for the report's deep trees"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ulimit -v"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace umbra::testing
