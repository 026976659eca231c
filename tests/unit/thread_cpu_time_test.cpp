#include "snapshot/thread_cpu_time.h"
#include "snapshot/scheduler_states.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace umbra {
namespace {

// The scheduler state of a thread of this process ('R' running, 'S' asleep, ...), from /proc.
char thread_state(pid_t tid) {
  std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), {});
  auto name_end = stat.rfind(')');  // the name, in parentheses, may hold anything
  return name_end == std::string::npos || name_end + 2 >= stat.size() ? '?' : stat[name_end + 2];
}

// A thread that spins until stop_spinning(), then sleeps in read() (no timer, no spurious wake-up) until the end.
class SpinThenBlock {
 public:
  SpinThenBlock() {
    if (pipe(wake_) != 0) wake_[0] = wake_[1] = -1;
    worker_ = std::thread([this] {
      tid_ = pid_t(syscall(SYS_gettid));
      volatile uint64_t spin = 0;
      while (spinning_.load()) spin = spin + 1;
      char byte;
      while (read(wake_[0], &byte, 1) < 0) {
      }
    });
    while (tid_.load() == 0) std::this_thread::yield();
  }
  ~SpinThenBlock() {
    spinning_ = false;
    if (write(wake_[1], "x", 1) != 1) {
    }
    worker_.join();
    close(wake_[0]);
    close(wake_[1]);
  }
  bool piped() const { return wake_[0] >= 0; }
  pid_t tid() const { return tid_.load(); }
  void stop_spinning() { spinning_ = false; }

 private:
  int wake_[2];
  std::atomic<pid_t> tid_{0};
  std::atomic<bool> spinning_{true};
  std::thread worker_;
};

TEST(ThreadCpuTime, MovesWhileAThreadRunsAndStandsStillWhileItSleeps) {
  SpinThenBlock worker;
  ASSERT_TRUE(worker.piped());
  const pid_t tid = worker.tid();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  auto first = thread_cpu_ns(tid);
  ASSERT_TRUE(first);
  // It spins, so its CPU time grows, including the slice still running, as soon as it is scheduled.
  std::optional<uint64_t> later;
  do {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    later = thread_cpu_ns(tid);
    ASSERT_TRUE(later);
  } while (*later == *first && std::chrono::steady_clock::now() < deadline);
  EXPECT_GT(*later, *first);
  worker.stop_spinning();
  while (thread_state(tid) != 'S' && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  ASSERT_EQ(thread_state(tid), 'S');  // blocked in read()
  auto asleep = thread_cpu_ns(tid);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(thread_cpu_ns(tid), asleep);
  EXPECT_FALSE(thread_cpu_ns(0));
  EXPECT_FALSE(thread_cpu_ns(0x3ffffff0));  // above any pid_max: no such thread
}

// A thread that spins is on a CPU; once it blocks it is not, whatever its CPU time did before. The same kept file
// answers both: each reading is fresh.
TEST(SchedulerStates, OnACpuWhileSpinningAndNotWhileBlocked) {
  SpinThenBlock worker;
  ASSERT_TRUE(worker.piped());
  const pid_t tid = worker.tid();
  SchedulerStates states;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  uint64_t last = 0;
  bool on_cpu = false;
  while (!on_cpu && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    on_cpu = states.on_cpu(tid, last);
  }
  EXPECT_TRUE(on_cpu);
  EXPECT_GT(last, 0u);
  EXPECT_EQ(states.open_files(), 1u);
  EXPECT_EQ(states.files_opened(), 1u);  // however many readings it took
  worker.stop_spinning();
  while (thread_state(tid) != 'S' && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  ASSERT_EQ(thread_state(tid), 'S');
  EXPECT_EQ(thread_scheduler_state(tid), 'S');
  EXPECT_EQ(states.state(tid), 'S');
  EXPECT_EQ(states.files_opened(), 1u);
  EXPECT_FALSE(states.on_cpu(tid, last));  // it ran since the last reading, but waits now
  EXPECT_FALSE(states.on_cpu(tid, last));  // it has not run since
  uint64_t unchanged = 7;
  EXPECT_FALSE(states.on_cpu(0x3ffffff0, unchanged));  // no such thread
  EXPECT_EQ(unchanged, 7u);
}

// The descriptors of this process open on a thread's stat file, by number.
std::vector<int> stat_descriptors(pid_t tid = 0) {
  const std::string file = tid ? "/task/" + std::to_string(tid) + "/stat" : "/stat";
  std::vector<int> fds;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code error;
    std::string target = std::filesystem::read_symlink(entry.path(), error).string();
    if (!error && target.find("/task/") != std::string::npos && target.ends_with(file))
      fds.push_back(std::stoi(entry.path().filename().string()));
  }
  return fds;
}

// Many threads asked about never hold more than kKept files, numbered out of the program's way, and the files go
// with the reader; a thread that has ended has no state, even though its file was kept.
TEST(SchedulerStates, KeepsABoundedNumberOfFilesAndForgetsEndedThreads) {
  const std::vector<int> before = stat_descriptors();  // of whatever else runs in this process
  constexpr size_t kThreads = SchedulerStates::kKept + 24;
  std::atomic<bool> release{false};
  std::atomic<size_t> started{0};
  std::vector<pid_t> tids(kThreads);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      tids[i] = pid_t(syscall(SYS_gettid));
      ++started;
      while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
  while (started.load() < kThreads) std::this_thread::yield();
  {
    SchedulerStates states;
    for (pid_t tid : tids) EXPECT_TRUE(states.state(tid).has_value()) << tid;
    EXPECT_GT(states.open_files(), 0u);
    EXPECT_LE(states.open_files(), SchedulerStates::kKept);
    std::vector<int> kept;
    for (pid_t tid : tids)
      for (int fd : stat_descriptors(tid)) kept.push_back(fd);
    EXPECT_EQ(kept.size(), states.open_files());
    for (int fd : kept) EXPECT_GE(fd, SchedulerStates::kLowestKept);
    release = true;
    for (auto& t : threads) t.join();
    for (pid_t tid : tids) EXPECT_FALSE(states.state(tid).has_value()) << tid;
  }
  EXPECT_EQ(stat_descriptors(), before);
}

// A process whose descriptors may not reach kLowestKept still gets its threads' states, from files not kept.
TEST(SchedulerStates, ReadsWithoutKeepingWhereNoHighNumberIsAllowed) {
  rlimit limit{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &limit), 0);
  rlimit low = limit;
  low.rlim_cur = SchedulerStates::kLowestKept / 2;
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);
  SchedulerStates states;
  const pid_t self = pid_t(syscall(SYS_gettid));
  std::optional<char> state = states.state(self);
  const size_t kept = states.open_files();
  setrlimit(RLIMIT_NOFILE, &limit);
  EXPECT_EQ(state, 'R');  // the thread asking runs
  EXPECT_EQ(kept, 0u);
  EXPECT_TRUE(stat_descriptors(self).empty());
}

// A program that closes the reader's descriptor and puts a file of its own at the number (dup2) keeps that file:
// the reader, finding no state in it, opens the thread's file again and leaves the number alone.
TEST(SchedulerStates, NeverClosesADescriptorThatIsNoLongerItsOwn) {
  SpinThenBlock alive;
  ASSERT_TRUE(alive.piped());
  SchedulerStates states;
  ASSERT_TRUE(states.state(alive.tid()).has_value());
  const std::vector<int> kept = stat_descriptors(alive.tid());
  ASSERT_EQ(kept.size(), 1u);
  char program_file[] = "/tmp/umbra_scheduler_states_XXXXXX";
  int program_fd = mkstemp(program_file);
  ASSERT_GE(program_fd, 0);
  ASSERT_EQ(write(program_fd, "no state here", 13), 13);
  ASSERT_EQ(dup2(program_fd, kept[0]), kept[0]);  // the program takes the number over
  struct stat taken{};
  ASSERT_EQ(fstat(kept[0], &taken), 0);
  EXPECT_TRUE(states.state(alive.tid()).has_value());  // from the thread's file, opened again
  EXPECT_EQ(states.files_opened(), 2u);
  struct stat still{};
  ASSERT_EQ(fstat(kept[0], &still), 0) << "the program's descriptor was closed";
  EXPECT_EQ(still.st_ino, taken.st_ino);
  close(kept[0]);
  close(program_fd);
  unlink(program_file);
}

// A program that closes the reader's descriptor lets the number be reused, here by the reader itself for another
// thread: the first thread's state is never read from the second thread's file.
TEST(SchedulerStates, NeverReadsAnotherThreadsFileAtAKeptNumber) {
  const pid_t asking = pid_t(syscall(SYS_gettid));  // running while it asks
  // A thread whose id falls in another slot than the asking thread's (ids are given out in turn: two tries at most).
  std::vector<std::unique_ptr<SpinThenBlock>> tried;
  do tried.push_back(std::make_unique<SpinThenBlock>());
  while (size_t(tried.back()->tid()) % SchedulerStates::kKept == size_t(asking) % SchedulerStates::kKept &&
         tried.size() < 3);
  SpinThenBlock& blocked = *tried.back();
  ASSERT_TRUE(blocked.piped());
  ASSERT_NE(size_t(asking) % SchedulerStates::kKept, size_t(blocked.tid()) % SchedulerStates::kKept);
  blocked.stop_spinning();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (thread_state(blocked.tid()) != 'S' && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  SchedulerStates states;
  EXPECT_EQ(states.state(blocked.tid()), 'S');
  const std::vector<int> kept = stat_descriptors(blocked.tid());
  ASSERT_EQ(kept.size(), 1u);
  close(kept[0]);  // the program closes a descriptor it does not own
  EXPECT_EQ(states.state(asking), 'R');
  ASSERT_EQ(stat_descriptors(asking), kept);  // the number now holds the asking thread's file
  EXPECT_EQ(states.state(blocked.tid()), 'S');
}

// The state follows the thread's name, which may hold ") S (" itself.
TEST(ThreadCpuTime, SchedulerStateAfterAnyName) {
  char old_name[32] = {};
  pthread_getname_np(pthread_self(), old_name, sizeof old_name);
  ASSERT_EQ(pthread_setname_np(pthread_self(), "a) S (b) S"), 0);
  EXPECT_EQ(thread_scheduler_state(pid_t(syscall(SYS_gettid))), 'R');  // the thread asking runs
  pthread_setname_np(pthread_self(), old_name);
  EXPECT_FALSE(thread_scheduler_state(0x3ffffff0).has_value());
}

}  // namespace
}  // namespace umbra
