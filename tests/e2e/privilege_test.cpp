// Root's `umbra attach` and `umbra dump` against another user's process, and what that process (or a third local
// user) could do to turn root's launcher against root. The hostile process is tests/native/umbra_hostile_target.c,
// run as uid 65534 (a third user is 65533) through setpriv; each test says which attack it stands for and what
// root must not do. Root's own files are in a directory only root can enter.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

#include "attach_target.h"
#include "e2e_env.h"
#include "process.h"

namespace umbra::testing {
namespace {

constexpr uid_t kProgramUser = 65534;
constexpr uid_t kThirdUser = 65533;
constexpr int kTimeout = 60;

std::vector<std::string> as_user(uid_t uid, std::vector<std::string> argv) {
  std::vector<std::string> command = {"/usr/bin/setpriv", "--reuid=" + std::to_string(uid),
                                      "--regid=" + std::to_string(uid), "--clear-groups"};
  command.insert(command.end(), argv.begin(), argv.end());
  return command;
}

void write_file(const std::string& path, const std::string& content, mode_t mode) {
  std::ofstream(path) << content;
  chmod(path.c_str(), mode);
}

std::optional<struct stat> status_of(const std::string& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return std::nullopt;
  return st;
}

// Connects to the socket at `path` and hangs up.
void knock(const std::string& path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::snprintf(address.sun_path, sizeof address.sun_path, "%s", path.c_str());
  connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  close(fd);
}

// A directory per test: `tmp` (the program's user's, where the sockets and FIFOs go, as its $TMPDIR would be),
// `root` (root's alone, holding what the attacks aim at) and `out` (where reports may go).
class Privilege : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0 || access("/usr/bin/setpriv", X_OK) != 0) GTEST_SKIP() << "needs root and setpriv";
    char pattern[] = "/tmp/umbra-privilege-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    base_ = pattern;
    chmod(base_.c_str(), 0755);
    tmp_ = base_ + "/tmp";
    root_ = base_ + "/root";
    out_ = base_ + "/out";
    mkdir(tmp_.c_str(), 0755);
    ASSERT_EQ(chown(tmp_.c_str(), kProgramUser, kProgramUser), 0);
    mkdir(root_.c_str(), 0700);
    mkdir(out_.c_str(), 0777);
    chmod(out_.c_str(), 0777);
  }
  void TearDown() override {
    if (!base_.empty()) std::filesystem::remove_all(base_);
  }

  // Runs `launcher` (as root) while `hostile` runs as `uid`, once `hostile` has made `ready_entry` in `tmp_`.
  ProcessResult beside(uid_t uid, const std::vector<std::string>& hostile, const std::string& ready_prefix,
                       const std::function<std::vector<std::string>(pid_t)>& launcher,
                       std::map<std::string, std::string> launcher_env = {}) {
    ProcessResult result;
    launcher_env.emplace("TMPDIR", tmp_);
    run_process(as_user(uid, hostile), {{"TMPDIR", tmp_}}, kTimeout, [&](pid_t pid) {
      bool ready = false;
      for (int i = 0; i < 400 && !ready; ++i) {
        std::error_code error;
        for (const auto& entry : std::filesystem::directory_iterator(tmp_, error))
          if (entry.path().filename().string().rfind(ready_prefix + std::to_string(pid), 0) == 0) ready = true;
        if (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(25));
      }
      EXPECT_TRUE(ready) << "the hostile process never made its " << ready_prefix << " entry";
      result = run_process(launcher(pid), launcher_env, kTimeout);
      kill(pid, SIGKILL);
    });
    return result;
  }
  ProcessResult attach_beside(const std::string& mode, const std::string& path,
                              std::map<std::string, std::string> env = {}) {
    return beside(
        kProgramUser, {UMBRA_TEST_HOSTILE_TARGET, "attach", mode, path}, "dotnet-diagnostic-",
        [&](pid_t pid) {
          return std::vector<std::string>{launcher_path(), "attach", std::to_string(pid), "--duration", "1",
                                          "-o", out_ + "/r"};
        },
        env);
  }
  ProcessResult dump_beside(const std::string& mode, const std::string& path,
                            std::map<std::string, std::string> env = {}) {
    return beside(
        kProgramUser, {UMBRA_TEST_HOSTILE_TARGET, "dump", mode, path}, "umbra-control-",
        [&](pid_t pid) {
          return std::vector<std::string>{launcher_path(), "dump", std::to_string(pid), "--wait", "3"};
        },
        env);
  }

  std::string base_, tmp_, root_, out_;
};

// Attack 1: the control FIFO swapped for a link; root wrote its hello byte into the file linked to.
TEST_F(Privilege, AttachWritesNoFileThroughASwappedControlFifo) {
  std::string victim = root_ + "/config";
  write_file(victim, "unchanged\n", 0644);
  ProcessResult attach = attach_beside("control-link", victim);
  EXPECT_EQ(read_file(victim), "unchanged\n") << attach.err;
}

// Attack 1: umbra's log made a link to a file only root may read; root printed it.
TEST_F(Privilege, AttachPrintsNoFileThroughASwappedLog) {
  std::string victim = root_ + "/secret";
  write_file(victim, "root-only-secret\n", 0600);
  ProcessResult attach = attach_beside("log-link", victim);
  EXPECT_EQ(attach.err.find("root-only-secret"), std::string::npos) << attach.err;
  EXPECT_NE(attach.err.find("is not a regular file of this user"), std::string::npos) << attach.err;
}

// Attack 1: umbra's log made a FIFO; root's launcher waited on it until killed.
TEST_F(Privilege, AttachDoesNotWaitOnALogMadeAFifo) {
  ProcessResult attach = attach_beside("log-fifo", "");
  EXPECT_EQ(attach.exit_code, 0) << attach.err;
  EXPECT_NE(attach.err.find("detached from pid"), std::string::npos) << attach.err;
}

// Attack 3: the control directory moved away and a link to root's directory put in its place; root's clean-up
// deleted the entries of that name there.
TEST_F(Privilege, AttachCleanUpFollowsNoLink) {
  for (const char* name : {"control", "log", "reported", "detached", "stays"}) write_file(root_ + "/" + name, "x", 0600);
  ProcessResult attach = attach_beside("dir-link", root_);
  for (const char* name : {"control", "log", "reported", "detached", "stays"})
    EXPECT_TRUE(std::filesystem::exists(root_ + "/" + name)) << name << " was deleted\n" << attach.err;
}

// Attack 7: what the program writes to umbra's log reaches root's terminal only escaped.
TEST_F(Privilege, AttachShowsTheLogEscaped) {
  ProcessResult attach = attach_beside("log-escapes", "");
  EXPECT_EQ(attach.err.find('\x1b'), std::string::npos) << attach.err;
  EXPECT_NE(attach.err.find("\\x1b]0;taken\\x07\\x1b[2Jcleared"), std::string::npos) << attach.err;
}

// Attack 2: the answer FIFO swapped for a link between root's chown of its directory and of the FIFO (the window
// widened to 300 ms); root handed the linked file to the program's user.
TEST_F(Privilege, DumpHandsNoFileToTheProgramsUser) {
  std::string victim = root_ + "/shadow";
  write_file(victim, "root's\n", 0600);
  ProcessResult dump = dump_beside("answer-link", victim, {{"LD_PRELOAD", UMBRA_TEST_SLOW_CHOWN_LIB}});
  std::optional<struct stat> st = status_of(victim);
  ASSERT_TRUE(st.has_value());
  EXPECT_EQ(st->st_uid, 0u) << dump.err;
  EXPECT_EQ(st->st_mode & 07777, 0600u) << dump.err;
}

// Attack 7: the dump's answer reaches root's terminal only escaped.
TEST_F(Privilege, DumpShowsTheAnswerEscaped) {
  ProcessResult dump = dump_beside("escapes", "");
  EXPECT_EQ(dump.err.find('\x1b'), std::string::npos) << dump.err;
  EXPECT_NE(dump.err.find("/reports/r\\x1b]0;taken\\x07\\x1b[2J.p1.json"), std::string::npos) << dump.err;
}

// Attack 7: a third user made the program's control FIFO first; `umbra dump` said the program was ending.
TEST_F(Privilege, DumpNamesAControlFifoTakenByAnotherUser) {
  chmod(tmp_.c_str(), 01777);
  ProcessResult dump;
  run_process(as_user(kProgramUser, {"sleep", "30"}), {{"TMPDIR", tmp_}}, kTimeout, [&](pid_t pid) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // setpriv has become sleep
    std::optional<launcher::ProcessStat> stat = launcher::read_process_stat(pid);
    ASSERT_TRUE(stat.has_value());
    std::string fifo = tmp_ + "/umbra-control-" + std::to_string(pid) + "-" + std::to_string(stat->start_ticks);
    run_process(as_user(kThirdUser, {"mkfifo", fifo}));
    dump = run_process({launcher_path(), "dump", std::to_string(pid), "--wait", "2"}, {}, kTimeout);
    kill(pid, SIGKILL);
  });
  EXPECT_EQ(dump.exit_code, 2);
  EXPECT_NE(dump.err.find("a FIFO of uid " + std::to_string(kThirdUser)), std::string::npos) << dump.err;
}

// Attack 7: the program's $TMPDIR, in the line saying it has no control FIFO, reaches root's terminal escaped.
TEST_F(Privilege, DumpShowsTheProgramsTmpdirEscaped) {
  ProcessResult dump;
  run_process(as_user(kProgramUser, {"sleep", "30"}), {{"TMPDIR", "/nowhere/\x1b]0;taken\x07"}}, kTimeout,
              [&](pid_t pid) {
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
                dump = run_process({launcher_path(), "dump", std::to_string(pid), "--wait", "2"}, {}, kTimeout);
                kill(pid, SIGKILL);
              });
  EXPECT_EQ(dump.exit_code, 2);
  EXPECT_NE(dump.err.find("/nowhere/\\x1b]0;taken\\x07"), std::string::npos) << dump.err;
  EXPECT_EQ(dump.err.find('\x1b'), std::string::npos) << dump.err;
}

// The program's user stops the work done as that user (SIGSTOP): root's launcher ends it and says so, instead of
// waiting for good.
TEST_F(Privilege, DumpDoesNotWaitOnAStoppedChild) {
  ProcessResult stopped;
  run_process(as_user(kProgramUser, {UMBRA_TEST_HOSTILE_TARGET, "dump", "silent", ""}), {{"TMPDIR", tmp_}}, kTimeout,
              [&](pid_t pid) {
                for (int i = 0; i < 400; ++i) {
                  std::error_code error;
                  bool made = false;
                  for (const auto& entry : std::filesystem::directory_iterator(tmp_, error))
                    made = made || entry.path().filename().string().rfind("umbra-control-", 0) == 0;
                  if (made) break;
                  std::this_thread::sleep_for(std::chrono::milliseconds(25));
                }
                stopped = run_process({launcher_path(), "dump", std::to_string(pid), "--wait", "40"},
                                      {{"TMPDIR", tmp_}}, kTimeout, [&](pid_t launcher) {
                                        // The launcher's child, once it runs as the program's user.
                                        for (int i = 0; i < 400; ++i) {
                                          std::this_thread::sleep_for(std::chrono::milliseconds(25));
                                          std::error_code error;
                                          for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
                                            std::string name = entry.path().filename().string();
                                            if (name.find_first_not_of("0123456789") != std::string::npos) continue;
                                            auto stat = launcher::read_process_stat(std::stoll(name));
                                            struct stat owner {};
                                            if (stat && stat->parent == launcher &&
                                                ::stat(("/proc/" + name).c_str(), &owner) == 0 &&
                                                owner.st_uid == kProgramUser) {
                                              run_process(as_user(kProgramUser, {"kill", "-STOP", name}));
                                              return;
                                            }
                                          }
                                        }
                                      });
                kill(pid, SIGKILL);
              });
  EXPECT_NE(stopped.exit_code, 0);
  EXPECT_NE(stopped.err.find("was stopped (signal 19); ending it"), std::string::npos) << stopped.err;
}

// Attack 4: the diagnostics socket's name taken by a third user (or by another process of the program's user):
// root sent it every UMBRA_ setting, a push URL's password included.
// Attack 7 too: the program's $TMPDIR, in the refusal's path, reaches root's terminal only escaped.
TEST_F(Privilege, AttachSpeaksOnlyToTheProgramsRuntime) {
  tmp_ = base_ + "/t\x1b]0;taken\x07mp";
  ASSERT_EQ(mkdir(tmp_.c_str(), 0755), 0);
  chmod(tmp_.c_str(), 01777);
  for (uid_t squatter_user : {kThirdUser, kProgramUser}) {
    ProcessResult attach, squatter;
    run_process(as_user(kProgramUser, {"sleep", "30"}), {{"TMPDIR", tmp_}}, kTimeout, [&](pid_t pid) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      std::optional<launcher::ProcessStat> stat = launcher::read_process_stat(pid);
      ASSERT_TRUE(stat.has_value());
      std::string socket = launcher::diagnostics_socket_name(tmp_, pid, stat->start_ticks);
      std::thread listening([&] {
        squatter = run_process(as_user(squatter_user, {UMBRA_TEST_HOSTILE_TARGET, "squat", tmp_, std::to_string(pid),
                                                       std::to_string(stat->start_ticks)}),
                               {}, kTimeout);
      });
      for (int i = 0; i < 400 && !status_of(socket); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(25));
      attach = run_process({launcher_path(), "attach", std::to_string(pid), "--duration", "1", "-o", out_ + "/r"},
                           {{"UMBRA_PUSH", "https://user:secret-token@profiles.example"}, {"TMPDIR", tmp_}}, kTimeout);
      // The squatter is still waiting when nothing came: connecting to it ends its wait.
      if (squatter.out.empty()) knock(socket);
      listening.join();
      kill(pid, SIGKILL);
      std::filesystem::remove(socket);
    });
    SCOPED_TRACE("the squatter's uid: " + std::to_string(squatter_user));
    EXPECT_EQ(attach.exit_code, 2) << attach.err;
    EXPECT_EQ(squatter.out.find("UMBRA_"), std::string::npos) << squatter.out;
    EXPECT_EQ(squatter.out.find("secret-token"), std::string::npos) << squatter.out;
    EXPECT_EQ(attach.err.find("secret-token"), std::string::npos) << attach.err;
    EXPECT_EQ(attach.err.find('\x1b'), std::string::npos) << attach.err;
    EXPECT_NE(attach.err.find(squatter_user == kThirdUser ? "belongs to uid 65533" : "is not the program's"),
              std::string::npos)
        << attach.err;
  }
}

// Attack 5: a FIFO planted beside the reports under a report's name; the listing at the end of `umbra run` opened
// it and never returned.
TEST_F(Privilege, RunListsNoFifoBesideTheReports) {
  ASSERT_EQ(mkfifo((out_ + "/r.4242.json").c_str(), 0666), 0);
  ProcessResult run = run_process({launcher_path(), "run", "-o", out_ + "/r", "--", "/bin/true"}, {}, kTimeout);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err.find("r.4242.json"), std::string::npos) << run.err;
}

// Attack 7: a push URL's password is not in the launcher's /proc/PID/cmdline, which every local user can read, nor
// in the line that refuses a URL.
TEST_F(Privilege, PushPasswordIsNotShown) {
  std::string cmdline;
  ProcessResult run = run_process(
      {launcher_path(), "run", "--push", "https://user:secret-token@127.0.0.1:9", "-o", out_ + "/p", "--", "sleep",
       "1"},
      {}, kTimeout, [&](pid_t pid) {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        cmdline = read_file("/proc/" + std::to_string(pid) + "/cmdline");
      });
  EXPECT_NE(cmdline.find("https://"), std::string::npos) << cmdline;
  EXPECT_EQ(cmdline.find("secret-token"), std::string::npos) << cmdline;
  ProcessResult refused =
      run_process({launcher_path(), "run", "--push", "user:secret-token@profiles.example", "--", "/bin/true"});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("--push '***@profiles.example'"), std::string::npos) << refused.err;
  EXPECT_EQ(refused.err.find("secret-token"), std::string::npos) << refused.err;
}

// What root's attach is for: another user's real .NET program is profiled, its report written by the program as its
// own user, and the program runs on.
TEST_F(Privilege, RootAttachesToAnotherUsersProgram) {
  ProcessResult attach;
  std::map<std::string, std::string> env = {{"TMPDIR", tmp_}, {"HOME", tmp_}};
  ProcessResult program = run_process(as_user(kProgramUser, app_command("Workloads", {"soak", "30"})), env, 300,
                                      [&](pid_t pid) {
    std::optional<launcher::ProcessStat> stat;
    std::string socket;
    for (int i = 0; i < 600; ++i) {
      stat = launcher::read_process_stat(pid);
      if (stat) socket = launcher::diagnostics_socket_name(tmp_, pid, stat->start_ticks);
      if (!socket.empty() && status_of(socket)) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    attach = run_process({launcher_path(), "attach", std::to_string(pid), "--duration", "1.5", "-o", out_ + "/real"},
                         {}, kTimeout);
    kill(pid, SIGKILL);
  });
  EXPECT_EQ(attach.exit_code, 0) << attach.err;
  EXPECT_EQ(occurrences(attach.err, "; it runs on without umbra"), 1u) << attach.err;
  std::optional<struct stat> report = status_of(out_ + "/real.json");
  ASSERT_TRUE(report.has_value()) << attach.err;
  EXPECT_EQ(report->st_uid, kProgramUser);
  EXPECT_NE(read_file(out_ + "/real.json").find("Workloads.Program.RunSoak"), std::string::npos);
}

}  // namespace
}  // namespace umbra::testing
