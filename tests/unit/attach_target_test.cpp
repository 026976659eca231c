#include "attach_target.h"

#include <gtest/gtest.h>
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

}  // namespace
}  // namespace umbra::launcher
