// The suite's own way of running programs: tests start programs from several threads at once (a load client beside
// an attach), and a program must not keep another run's output pipes open: that run's reader would wait for it.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "process.h"

namespace umbra::testing {
namespace {

TEST(TestProcesses, AProgramStartedMeanwhileHoldsNoPipeOfAnotherRun) {
  // ls lists its own descriptors: the standard ones, the directory it reads, and any the test itself inherited.
  const ProcessResult alone = run_process({"ls", "/proc/self/fd"});
  ASSERT_EQ(alone.exit_code, 0) << alone.err;
  std::atomic<bool> listing{true};
  std::thread other_runs([&] {
    while (listing.load()) run_process({"true"});
  });
  std::string extra;
  for (int i = 0; i < 300 && extra.empty(); ++i) {
    ProcessResult r = run_process({"ls", "/proc/self/fd"});
    if (r.exit_code != 0 || r.out != alone.out) extra = r.out + r.err;
  }
  listing.store(false);
  other_runs.join();
  EXPECT_EQ(extra, "") << "a program held descriptors beyond those of a run alone:\n" << alone.out;
}

}  // namespace
}  // namespace umbra::testing
