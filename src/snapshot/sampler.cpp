#include "snapshot/sampler.h"

#include <algorithm>
#include <chrono>

#include "hooks/tick_clock.h"
#include "profiler/log.h"
#include "snapshot/stack_walk.h"

namespace umbra {
namespace {

constexpr size_t kMaxFramesPerTick = size_t(1) << 18;
constexpr size_t kMaxFramesPerThread = 4096;
constexpr auto kNativeTopWait = std::chrono::milliseconds(2);

}  // namespace

Sampler::Sampler(clr::ICorProfilerInfo10& info, ThreadRegistry& threads, FunctionNames& names, uint32_t interval_ms)
    : info_(info), threads_(threads), names_(names), interval_ms_(interval_ms) {
  frames_.resize(kMaxFramesPerTick);
  stack_.reserve(kMaxFramesPerThread + NativeCapture::kMaxFrames);
}

Sampler::~Sampler() {
  stop();
  if (thread_.joinable()) thread_.detach();  // never reached in practice: the session lives until exit
}

void Sampler::start() {
  stats_.native_tops = install_native_capture_handler() != 0;
  if (!stats_.native_tops) log::always("no free real-time signal: native frames above managed code are not captured");
  thread_ = std::thread([this] { run(); });
}

void Sampler::stop() {
  stopping_.store(true, std::memory_order_release);
  std::lock_guard<std::mutex> lock(tree_mutex_);
  stopped_ = true;
}

SamplerStats Sampler::stats() {
  std::lock_guard<std::mutex> lock(tree_mutex_);
  return stats_;
}

void Sampler::run() {
  if (!clr::succeeded(info_.InitializeCurrentThread())) log::debug("InitializeCurrentThread failed");
  // Each interval is drawn uniformly from [0.5, 1.5] x the mean: a fixed period phase-locks with periodic work
  // (a 10 ms tick over a 3 ms + 1 ms loop samples each half exactly equally).
  uint64_t seed = monotonic_ns() | 1;
  auto next = std::chrono::steady_clock::now();
  const auto mean = std::chrono::microseconds(uint64_t(interval_ms_) * 1000);
  while (!stopping_.load(std::memory_order_acquire)) {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    next += mean / 2 + std::chrono::microseconds(seed % uint64_t(mean.count() + 1));
    tick();
    auto now = std::chrono::steady_clock::now();
    if (next < now) next = now;  // a slow tick is not followed by a burst of catch-up ticks
    std::this_thread::sleep_until(next);
  }
}

void Sampler::tick() {
  tick_start_ns_ = monotonic_ns();
  tick_ = SamplerStats{};
  tick_.ticks = 1;
  threads_.sampling_targets(targets_);  // sorted by ThreadID; allocation happens here, before suspending
  for (auto& t : targets_)
    if (t->os_tid.load(std::memory_order_relaxed) == 0) {
      clr::DWORD tid = 0;
      if (clr::succeeded(info_.GetThreadInfo(t->thread_id, &tid)) && tid != 0)
        t->os_tid.store(pid_t(tid), std::memory_order_relaxed);
    }
  walks_.clear();
  walks_.reserve(targets_.size() + 64);
  enumerated_.resize(4096);
  unknown_.clear();
  unknown_.reserve(enumerated_.size());

  capture_native_tops();
  if (stopping_.load(std::memory_order_acquire)) return;

  clr::HRESULT hr = info_.SuspendRuntime();
  if (!clr::succeeded(hr)) {
    count(hr == clr::CORPROF_E_SUSPENSION_IN_PROGRESS ? SampleDrop::kSuspensionInProgress : SampleDrop::kSuspendFailed);
  } else {
    uint64_t suspended_at = monotonic_ns();
    walk_suspended();
    info_.ResumeRuntime();
    uint64_t held = monotonic_ns() - suspended_at;
    tick_.suspensions = 1;
    tick_.suspended_ns_total = held;
    tick_.suspended_ns_max = held;
  }
  attribute();
  for (clr::ThreadID id : unknown_) threads_.on_seen_by_sampler(id);
}

void Sampler::capture_native_tops() {
  if (!stats_.native_tops) return;
  bool any = false;
  for (auto& t : targets_) {
    pid_t tid = t->os_tid.load(std::memory_order_relaxed);
    if (tid == 0 || t->dying.load(std::memory_order_acquire)) continue;
    if (t->capture.state.load(std::memory_order_acquire) != NativeCapture::kIdle) continue;  // still answering
    any |= request_native_capture(tid, t->capture);
  }
  if (!any) return;
  // Threads answer within microseconds unless they are descheduled; a late one is sampled without its top.
  auto deadline = std::chrono::steady_clock::now() + kNativeTopWait;
  for (;;) {
    bool pending = false;
    for (auto& t : targets_) {
      uint32_t s = t->capture.state.load(std::memory_order_acquire);
      pending |= s == NativeCapture::kRequested || s == NativeCapture::kCapturing;
    }
    if (!pending || std::chrono::steady_clock::now() > deadline) break;
    // Sleep, not spin: the threads being waited for need the CPU to run their handlers.
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

// Runtime suspended: no allocation, no lock, no logging below.
void Sampler::walk_suspended() {
  clr::ICorProfilerThreadEnum* threads = nullptr;
  if (!clr::succeeded(info_.EnumThreads(&threads)) || threads == nullptr) {
    count(SampleDrop::kEnumThreadsFailed);
    return;
  }
  clr::ULONG fetched = 0;
  threads->Next(clr::ULONG(enumerated_.size()), enumerated_.data(), &fetched);
  threads->Release();
  size_t used = 0;
  for (clr::ULONG i = 0; i < fetched; ++i) {
    clr::ThreadID id = enumerated_[i];
    auto it = std::lower_bound(targets_.begin(), targets_.end(), id,
                               [](const std::shared_ptr<SampledThread>& t, clr::ThreadID v) { return t->thread_id < v; });
    if (it == targets_.end() || (*it)->thread_id != id) {
      if (unknown_.size() < unknown_.capacity()) unknown_.push_back(id);
      count(SampleDrop::kThreadNotYetKnown);
      continue;
    }
    SampledThread& target = **it;
    if (!target.begin_walk()) {
      count(SampleDrop::kThreadDying);
      continue;
    }
    FrameSink sink{frames_.data() + used, std::min(kMaxFramesPerThread, frames_.size() - used), 0, false, 0};
    clr::HRESULT hr = walk_thread(info_, id, sink);
    target.end_walk();
    if (hr == clr::CORPROF_E_STACKSNAPSHOT_UNSAFE) {
      count(SampleDrop::kSnapshotUnsafe);
    } else if (!clr::succeeded(hr) && hr != clr::E_FAIL) {
      count(SampleDrop::kSnapshotFailed);
    } else if (sink.count == 0) {
      count(SampleDrop::kNoFrames);  // E_FAIL: no managed frames
    } else {
      if (sink.overflowed) count(SampleDrop::kFramesTruncated);
      if (walks_.size() < walks_.capacity()) walks_.push_back({*it, used, sink.count, sink.first_managed_ip, false});
      used += sink.count;
    }
  }
}

void Sampler::attribute() {
  std::lock_guard<std::mutex> lock(tree_mutex_);
  if (stopped_) return;
  for (Walk& walk : walks_) {
    SampledThread& t = *walk.thread;
    stack_.clear();
    // Leaf first: the native top (if the thread was in native code), then what the walk saw.
    NativeCapture& capture = t.capture;
    bool native_top = false;
    if (capture.state.load(std::memory_order_acquire) == NativeCapture::kDone) {
      if (capture.count > 0) {
        // The native top belongs on this stack only if it returns into the walk's topmost managed frame (or a
        // stub the walk does not show); otherwise the thread left native code before the suspension.
        clr::FunctionID at_stop = 0;
        // A top that never reached JIT-compiled code (stop_ip 0) does not connect to any managed frame.
        bool into_stub = capture.stop_ip != 0 &&
                         (!clr::succeeded(info_.GetFunctionFromIP(reinterpret_cast<clr::LPCBYTE>(capture.stop_ip),
                                                                  &at_stop)) ||
                          at_stop == 0);
        bool into_top = at_stop != 0 && at_stop == frames_[walk.first].id && !frames_[walk.first].native;
        if (into_stub || into_top) {
          native_top = true;
          for (uint32_t i = 0; i < capture.count; ++i) stack_.push_back({capture.frames[i], true});
        } else {
          ++tick_.drops[static_cast<size_t>(SampleDrop::kNativeTopStale)];
        }
      }
      capture.state.store(NativeCapture::kIdle, std::memory_order_release);
    } else if (cancel_native_capture(capture)) {
      ++tick_.drops[static_cast<size_t>(SampleDrop::kNativeTopTimeout)];
    }
    for (size_t i = 0; i < walk.count; ++i) stack_.push_back(frames_[walk.first + i]);
    std::reverse(stack_.begin(), stack_.end());
    t.tree.add(stack_.data(), stack_.size());
    (native_top ? t.native_samples : t.managed_samples) += 1;
    ++tick_.samples;
    for (size_t i = 0; i < walk.count; ++i)
      if (!frames_[walk.first + i].native) names_.ensure(frames_[walk.first + i].id);
  }
  tick_.tick_ns_total = tick_.tick_ns_max = monotonic_ns() - tick_start_ns_;
  stats_.ticks += tick_.ticks;
  stats_.samples += tick_.samples;
  stats_.suspensions += tick_.suspensions;
  stats_.suspended_ns_total += tick_.suspended_ns_total;
  stats_.suspended_ns_max = std::max(stats_.suspended_ns_max, tick_.suspended_ns_max);
  stats_.tick_ns_total += tick_.tick_ns_total;
  stats_.tick_ns_max = std::max(stats_.tick_ns_max, tick_.tick_ns_max);
  for (size_t r = 0; r < kSampleDropCount; ++r) stats_.drops[r] += tick_.drops[r];
}

}  // namespace umbra
