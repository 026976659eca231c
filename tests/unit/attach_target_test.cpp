#include "attach_target.h"

#include <dlfcn.h>
#include <limits.h>

#include <cstdlib>
#include <cstring>

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

namespace umbra::launcher {
namespace {

TEST(AttachTarget, SocketNameCarriesThePidAndTheStartTime) {
  EXPECT_EQ(diagnostics_socket_name("/tmp", 4242, 987654), "/tmp/dotnet-diagnostic-4242-987654-socket");
}

TEST(AttachTarget, AProcessThatHasEnded) {
  pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);  // reaped: its pid names no process now
  AttachTarget target = find_attach_target(child);
  EXPECT_EQ(target.problem, "no process has pid " + std::to_string(child));
  EXPECT_TRUE(target.socket_path.empty());
}

TEST(AttachTarget, AProcessWithoutDotNet) {
  AttachTarget target = find_attach_target(getpid());  // this test program
  EXPECT_TRUE(target.socket_path.empty());
  EXPECT_NE(target.problem.find("is not a .NET program: no .NET runtime is loaded in it"), std::string::npos)
      << target.problem;
  EXPECT_EQ(target.uid, geteuid());
}

TEST(AttachTarget, ASocketAnEarlierProcessOfThePidLeftIsNotTaken) {
  const char* tmpdir = std::getenv("TMPDIR");
  std::string directory = tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp";
  std::string stale = diagnostics_socket_name(directory, getpid(), 1);  // a start long before this process's
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(listener, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  ASSERT_LT(stale.size(), sizeof(address.sun_path));
  std::strcpy(address.sun_path, stale.c_str());
  unlink(stale.c_str());
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0) << stale;
  AttachTarget target = find_attach_target(getpid());
  close(listener);
  unlink(stale.c_str());
  EXPECT_TRUE(target.socket_path.empty()) << target.socket_path;
  EXPECT_NE(target.problem.find("is not a .NET program"), std::string::npos) << target.problem;
}

TEST(AttachTarget, ProcessStatTellsAnEndedProcessAndALaterOne) {
  std::optional<ProcessStat> self = read_process_stat(getpid());
  ASSERT_TRUE(self);
  EXPECT_EQ(self->state, 'R');  // reading its own stat
  EXPECT_GT(self->start_ticks, 0u);
  pid_t child = fork();
  if (child == 0) _exit(0);
  std::optional<ProcessStat> ended;
  for (int i = 0; i < 1000 && !(ended = read_process_stat(child), ended && ended->state == 'Z'); ++i) usleep(1000);
  ASSERT_TRUE(ended);
  EXPECT_EQ(ended->state, 'Z') << "ended, not yet reaped";
  EXPECT_EQ(ended->parent, getpid());
  EXPECT_EQ(ended->name, self->name);  // a copy keeps its parent's name
  EXPECT_GE(ended->start_ticks, self->start_ticks);
  waitpid(child, nullptr, 0);
  EXPECT_FALSE(read_process_stat(child));
}

// The launcher says "detached" once the runtime has unmapped umbra's library, found by its whole path.
TEST(AttachTarget, MapsTellWhetherAFileIsMappedByItsWholePath) {
  Dl_info info{};
  ASSERT_NE(dladdr(reinterpret_cast<void*>(&dlsym), &info), 0);
  char resolved[PATH_MAX];
  ASSERT_NE(realpath(info.dli_fname, resolved), nullptr);
  const std::string libdl_or_libc = resolved;
  EXPECT_EQ(maps_file(getpid(), libdl_or_libc), true) << libdl_or_libc;
  EXPECT_EQ(maps_file(getpid(), libdl_or_libc.substr(0, libdl_or_libc.size() - 1)), false) << "a shorter name";
  EXPECT_EQ(maps_file(getpid(), libdl_or_libc.substr(1)), false) << "the name without its first character";
  pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);
  EXPECT_EQ(maps_file(child, libdl_or_libc), std::nullopt) << "no process: nothing to say";
}

}  // namespace
}  // namespace umbra::launcher
