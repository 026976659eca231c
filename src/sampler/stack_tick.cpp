#include "sampler/stack_tick.h"

#include <algorithm>
#include <chrono>

#include "hooks/tick_clock.h"
#include "snapshot/code_ranges.h"
#include "snapshot/native_capture.h"
#include "snapshot/thread_cpu_time.h"

namespace umbra {
namespace {

constexpr size_t kMaxFramesPerTick = size_t(1) << 18;
constexpr size_t kMaxFramesPerThread = 4096;
constexpr size_t kMaxEnumeratedThreads = 4096;

// How long to wait for threads to answer the native-top signal. They answer within microseconds unless they are
// not scheduled (a loaded machine); the wait sleeps, so it costs the program nothing.
std::chrono::milliseconds native_top_wait(uint32_t interval_ms) {
  return std::chrono::milliseconds(std::clamp<uint32_t>(interval_ms, 2, 10));
}

// How long a suspension waits for every thread before it looks for those that cannot answer (signal blocked).
constexpr std::chrono::microseconds kBlockedSignalGrace{300};

}  // namespace

StackTick::StackTick(clr::ICorProfilerInfo10& info, ThreadRegistry& threads, SchedulerStates& states,
                     Options options)
    : info_(info),
      threads_(threads),
      states_(states),
      options_(options),
      frames_(kMaxFramesPerTick) {
  enumerated_.resize(kMaxEnumeratedThreads);
  unknown_.reserve(kMaxEnumeratedThreads);
}

void StackTick::prepare() {
  threads_.sampling_targets(targets_);  // sorted by ThreadID
  walks_.clear();
  walks_.reserve(targets_.size() + 64);
  unknown_.clear();
  process_code_ranges().refresh();  // for the capture handler and the walk (see unwind_info.h)
}

void StackTick::take(uint64_t tick_index, SamplerStats& tick, WalkObserver* observer,
                     const std::atomic<bool>& stopping) {
  if (options_.skip_unchanged || options_.cpu_states) read_threads_before_signals();
  if (options_.native_tops) capture_native_tops(tick_index);
  if (options_.skip_unchanged) read_cpu_before_walks();
  if (stopping.load(std::memory_order_acquire)) return;  // the thread stopping the sampler may be one it would wait for

  uint64_t suspend_called = monotonic_ns();
  clr::HRESULT hr = info_.SuspendRuntime();
  tick.suspend_wait_ns_total = monotonic_ns() - suspend_called;
  if (!clr::succeeded(hr)) {
    tick.count(hr == clr::CORPROF_E_SUSPENSION_IN_PROGRESS ? SampleDrop::kSuspensionInProgress
                                                            : SampleDrop::kSuspendFailed);
    return;
  }
  uint64_t suspended_at = monotonic_ns();
  if (options_.signal_walks) capture_whole_stacks(tick_index);
  walk_suspended(tick, observer);
  // Held until the resume is asked for: the threads it releases may preempt the sampler before the call returns,
  // and that wait is not time the program was stopped.
  uint64_t held = monotonic_ns() - suspended_at;
  info_.ResumeRuntime();
  tick.suspensions = 1;
  tick.suspended_ns_total = held;
  tick.suspended_ns_max = held;
}

void StackTick::register_unknown_threads() {
  for (clr::ThreadID id : unknown_) threads_.on_seen_by_sampler(id);
}

// A blocked thread is the common case (waiting on a lock, a socket, a timer) and the costly one to walk: it must
// be woken to answer the native-top signal, and its native frames are unwound under suspension. One CPU-clock read
// shows whether it has run at all since its last walk, and whether it may be on a CPU now; read before the signal,
// which wakes it.
void StackTick::read_threads_before_signals() {
  for (auto& t : targets_) {
    pid_t tid = t->os_tid.load(std::memory_order_relaxed);
    auto cpu_ns = thread_cpu_ns(tid);
    t->unchanged = options_.skip_unchanged && cpu_ns && t->last_walk != SampledThread::LastWalk::kNone &&
                   *cpu_ns == t->cpu_ns_before_last_walk;
    t->on_cpu = false;
    if (!cpu_ns || !options_.cpu_states) continue;
    t->on_cpu = states_.on_cpu(tid, t->cpu_ns_seen.load(std::memory_order_relaxed), *cpu_ns);
    t->cpu_ns_seen.store(*cpu_ns, std::memory_order_relaxed);
  }
}

// Read after the native-top signal was answered, since answering it uses CPU time (not the program's running).
void StackTick::read_cpu_before_walks() {
  for (auto& t : targets_) {
    if (t->unchanged) continue;
    t->cpu_ns_before_walk = thread_cpu_ns(t->os_tid.load(std::memory_order_relaxed));
    if (t->cpu_ns_before_walk) t->cpu_ns_seen.store(*t->cpu_ns_before_walk, std::memory_order_relaxed);
  }
}

void StackTick::capture_native_tops(uint64_t tick_index) {
  begin_native_capture_round();
  bool any = false;
  for (auto& t : targets_) {
    pid_t tid = t->os_tid.load(std::memory_order_relaxed);
    if (tid == 0 || t->unchanged || t->dying.load(std::memory_order_acquire)) continue;
    if (t->capture.state.load(std::memory_order_acquire) != NativeCapture::kIdle) continue;  // still answering
    t->capture.tick = tick_index;
    t->capture.through_managed = false;
    any |= request_native_capture(tid, t->capture);
  }
  if (!any) return;
  // A thread that answers too late is sampled without its top (native_top_timeout). The sampler sleeps until the
  // last answer wakes it: the threads being waited for need the CPU to run their handlers.
  wait_for_native_captures(
      [&] {
        bool pending = false;
        for (auto& t : targets_) {
          uint32_t s = t->capture.state.load(std::memory_order_acquire);
          pending |= s == NativeCapture::kRequested || s == NativeCapture::kCapturing;
        }
        return pending;
      },
      std::chrono::steady_clock::now() + native_top_wait(options_.interval_ms));
}

const std::shared_ptr<SampledThread>* StackTick::target_of(clr::ThreadID id) const {
  auto it = std::lower_bound(targets_.begin(), targets_.end(), id,
                             [](const std::shared_ptr<SampledThread>& t, clr::ThreadID v) { return t->thread_id < v; });
  return it == targets_.end() || (*it)->thread_id != id ? nullptr : &*it;
}

// Runtime suspended: no allocation, no lock, no logging. A thread stopped in managed code waits inside the runtime
// and answers from there, unless the runtime stopped it from its activation handler, which keeps the capture signal
// blocked until the resume: such a thread is not waited for (the whole program stays stopped while the sampler
// waits); an answer it gives after the resume, before the check reads it, is compared like any other. One running
// native code answers where it runs. A thread still answering an earlier signal is left out (its capture is not
// idle).
void StackTick::capture_whole_stacks(uint64_t tick_index) {
  begin_native_capture_round();
  const uint64_t stamp = suspended_capture_stamp(tick_index);
  bool any = false;
  for (auto& t : targets_) {
    pid_t tid = t->os_tid.load(std::memory_order_relaxed);
    if (tid == 0 || t->dying.load(std::memory_order_acquire)) continue;
    if (t->capture.state.load(std::memory_order_acquire) != NativeCapture::kIdle) continue;
    t->capture.tick = stamp;
    t->capture.through_managed = true;
    t->capture.shadow = nullptr;
    t->capture.signal_blocked = false;
    any |= request_native_capture(tid, t->capture);
  }
  if (!any) return;
  auto awaited = [&] {
    for (auto& t : targets_) {
      uint32_t s = t->capture.state.load(std::memory_order_acquire);
      if (t->capture.tick == stamp && !t->capture.signal_blocked &&
          (s == NativeCapture::kRequested || s == NativeCapture::kCapturing))
        return true;
    }
    return false;
  };
  const auto deadline = std::chrono::steady_clock::now() + native_top_wait(options_.interval_ms);
  // Threads that can answer do so within microseconds; only those that have not are asked about.
  if (wait_for_native_captures(awaited, std::min(deadline, std::chrono::steady_clock::now() + kBlockedSignalGrace)))
    return;
  for (auto& t : targets_) {
    // Requested, not capturing: a thread inside umbra's handler has every signal blocked for a moment.
    if (t->capture.tick == stamp && t->capture.state.load(std::memory_order_acquire) == NativeCapture::kRequested &&
        native_capture_signal_blocked(t->os_tid.load(std::memory_order_relaxed)))
      t->capture.signal_blocked = true;
  }
  wait_for_native_captures(awaited, deadline);
}

// Runtime suspended: no allocation, no lock, no logging below.
void StackTick::walk_suspended(SamplerStats& tick, WalkObserver* observer) {
  clr::ICorProfilerThreadEnum* threads = nullptr;
  if (!clr::succeeded(info_.EnumThreads(&threads)) || threads == nullptr) {
    tick.count(SampleDrop::kEnumThreadsFailed);
    return;
  }
  clr::ULONG fetched = 0;
  threads->Next(clr::ULONG(enumerated_.size()), enumerated_.data(), &fetched);
  threads->Release();
  size_t used = 0;
  for (clr::ULONG i = 0; i < fetched; ++i) {
    clr::ThreadID id = enumerated_[i];
    const std::shared_ptr<SampledThread>* owner = target_of(id);
    if (owner == nullptr) {
      if (unknown_.size() < unknown_.capacity()) unknown_.push_back(id);
      tick.count(SampleDrop::kThreadNotYetKnown);
      continue;
    }
    SampledThread* target = owner->get();
    if (!target->begin_walk()) {
      tick.count(SampleDrop::kThreadDying);
      continue;
    }
    if (target->os_tid.load(std::memory_order_relaxed) == 0) {
      // Only now, with the runtime suspended, is the ThreadID from EnumThreads certain to be alive.
      clr::DWORD tid = 0;
      if (clr::succeeded(info_.GetThreadInfo(id, &tid)) && tid != 0)
        target->os_tid.store(pid_t(tid), std::memory_order_relaxed);
    }
    if (target->unchanged) {
      target->end_walk();
      if (target->last_walk == SampledThread::LastWalk::kNoFrames) {
        tick.count(SampleDrop::kNoFrames);
      } else if (walks_.size() < walks_.capacity()) {
        Walk again{*owner};
        again.unchanged = true;
        walks_.push_back(again);
      }
      continue;
    }
    target->last_walk = SampledThread::LastWalk::kNone;  // until this walk proves whole
    FrameSink sink{frames_.data() + used, std::min(kMaxFramesPerThread, frames_.capacity() - used)};
    sink.native_runs = &target->native_runs;
    clr::HRESULT hr = walk_thread(info_, id, sink);
    if (observer && sink.count > 0 && hr != clr::CORPROF_E_STACKSNAPSHOT_UNSAFE)
      observer->on_walk(id, sink, clr::succeeded(hr) && !sink.overflowed);  // still under the walk guard
    target->end_walk();
    if (hr == clr::CORPROF_E_STACKSNAPSHOT_UNSAFE) {
      tick.count(SampleDrop::kSnapshotUnsafe);
    } else if (!clr::succeeded(hr) && hr != clr::E_FAIL) {
      tick.count(SampleDrop::kSnapshotFailed);
    } else if (sink.count == 0) {
      tick.count(SampleDrop::kNoFrames);  // E_FAIL: no managed frames
      if (target->cpu_ns_before_walk) {
        target->last_walk = SampledThread::LastWalk::kNoFrames;
        target->cpu_ns_before_last_walk = *target->cpu_ns_before_walk;
      }
    } else if (options_.keep_walks) {  // a walk cut at its frame limit is counted where it makes a sample
      if (walks_.size() < walks_.capacity())
        walks_.push_back({*owner, used, sink.count, sink.first_managed_ip, sink.first_managed_function, sink.overflowed});
      used += sink.count;
    }
  }
}

}  // namespace umbra
