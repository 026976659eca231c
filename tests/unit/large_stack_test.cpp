// Deep report trees are never worked on a small stack: without a large one the work is refused.
#include "util/large_stack.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace umbra {
namespace {

TEST(LargeStack, TheWorkRunsOnALargeStack) {
  size_t stack_bytes = 0;
  std::string error;
  ASSERT_TRUE(run_on_large_stack([&] {
    pthread_attr_t attr;
    pthread_getattr_np(pthread_self(), &attr);
    pthread_attr_getstacksize(&attr, &stack_bytes);
    pthread_attr_destroy(&attr);
  }, &error)) << error;
  EXPECT_GE(stack_bytes, kLargeStackBytes);
}

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)  // they reserve far more address space
TEST(LargeStack, UnderAnAddressSpaceLimitTheWorkIsRefusedNotRunOnASmallStack) {
  pid_t pid = fork();
  if (pid == 0) {
    rlimit limit{size_t(256) << 20, size_t(256) << 20};
    setrlimit(RLIMIT_AS, &limit);
    bool ran = false;
    std::string error;
    bool started = run_on_large_stack([&] { ran = true; }, &error);
    _exit(!started && !ran && !error.empty() ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}
#endif

}  // namespace
}  // namespace umbra
