// The sampler thread's intervals, timed at each suspension of a fake runtime: drawn from 0.5-1.5x the mean, so
// that periodic work is not sampled in lock-step.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <vector>

#include "sampler/sampler.h"
#include "shadow_limits.h"
#include "fake_thread_enum.h"
#include "unimplemented_profiler_info.h"

namespace umbra {
namespace {

using Clock = std::chrono::steady_clock;

// A runtime with no threads that notes when each suspension began.
class TimedRuntime final : public testing::UnimplementedProfilerInfo {
 public:
  std::vector<Clock::time_point> wait_for_suspensions(size_t n) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait_for(lock, std::chrono::seconds(60), [&] { return times_.size() >= n; });
    return times_;
  }
  clr::HRESULT SuspendRuntime() override {
    std::lock_guard<std::mutex> lock(mutex_);
    times_.push_back(Clock::now());
    changed_.notify_all();
    return clr::S_OK;
  }
  clr::HRESULT ResumeRuntime() override { return clr::S_OK; }
  clr::HRESULT EnumThreads(clr::ICorProfilerThreadEnum** out) override {
    *out = no_threads_.listing({});
    return clr::S_OK;
  }
  clr::HRESULT InitializeCurrentThread() override { return clr::S_OK; }

 private:
  testing::FakeThreadEnum no_threads_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Clock::time_point> times_;
};

// The sampler's thread is detached, never joined: what it uses lives as long as the process.
struct Running {
  TimedRuntime runtime;
  ShadowPool pool{testing::small_limits()};
  ThreadRegistry registry{pool};
  FunctionNames names{&runtime};
  Sampler sampler{runtime, registry, names, SamplerOptions{20, &pool, 1}};
};

// Shadow mode, a snapshot at every tick, a 20 ms mean: intervals spread over 10-30 ms. A fixed period would put
// almost all of them near 20 ms. A late tick lengthens its interval and shortens the next (the schedule is
// absolute), so on a busy machine some fall outside 10-30 ms.
TEST(SamplerInterval, EachIntervalIsDrawnFromHalfToOneAndAHalfTimesTheMean) {
  static Running* running = new Running;
  running->pool.prepare(1);
  running->sampler.start();
  std::vector<Clock::time_point> times = running->runtime.wait_for_suspensions(101);
  running->sampler.stop();
  ASSERT_GE(times.size(), 101u);
  std::vector<double> ms;
  for (size_t i = 1; i < 101; ++i) ms.push_back(std::chrono::duration<double, std::milli>(times[i] - times[i - 1]).count());
  auto count = [&](auto predicate) { return std::count_if(ms.begin(), ms.end(), predicate); };
  double mean = 0;
  for (double m : ms) mean += m / double(ms.size());
  EXPECT_GT(mean, 17.0);
  EXPECT_LT(mean, 26.0);
  // About 20 of 100 each way; at least 5 (a fixed period gives none): 10 failed once in a whole run (9 of 100).
  EXPECT_GE(count([](double m) { return m < 14.0; }), 5) << "expected about 20 of 100 under 0.7x";
  EXPECT_GE(count([](double m) { return m > 26.0; }), 5) << "expected about 20 of 100 over 1.3x";
  EXPECT_GE(count([](double m) { return m >= 9.5 && m <= 32.0; }), 80) << ::testing::PrintToString(ms);
}

}  // namespace
}  // namespace umbra
