#include "sampler/sampler.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "hooks/tick_clock.h"
#include "util/log.h"
#include "snapshot/code_ranges.h"
#include "snapshot/stack_walk.h"
#include "snapshot/thread_cpu_time.h"

namespace umbra {
namespace {

constexpr size_t kMaxFramesPerTick = size_t(1) << 18;
constexpr size_t kMaxFramesPerThread = 4096;
// How long to wait for threads to answer the native-top signal. They answer within microseconds unless they are
// not scheduled (a loaded machine); the wait sleeps, so it costs the program nothing.
std::chrono::milliseconds native_top_wait(uint32_t interval_ms) {
  return std::chrono::milliseconds(std::clamp<uint32_t>(interval_ms, 2, 10));
}

}  // namespace

Sampler::Sampler(clr::ICorProfilerInfo10& info, ThreadRegistry& threads, FunctionNames& names,
                 SamplerOptions options)
    : info_(info), threads_(threads), names_(names), options_(options) {
  frames_.resize(kMaxFramesPerTick);
  stack_.reserve(kMaxFramesPerThread + NativeCapture::kMaxFrames);
  if (options_.shadows) {
    reconcile_frames_.resize(kMaxFramesPerThread);
    splice_buffer_.resize(size_t(1) << 16);
    splice_frame_buffer_.resize(size_t(1) << 17);
    unexplained_shadow_.reserve(kMaxFramesPerThread);
    unexplained_snapshot_.reserve(kMaxFramesPerThread);
  }
}

Sampler::~Sampler() {
  stop();
  if (thread_.joinable()) thread_.detach();  // never reached in practice: the session lives until exit
}

void Sampler::start() {
  stats_.native_tops = options_.shadows == nullptr && install_native_capture_handler() != 0;
  if (!stats_.native_tops && options_.shadows == nullptr)
    log::always("no free real-time signal: native frames above managed code are not captured");
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
  const auto mean = std::chrono::microseconds(uint64_t(options_.interval_ms) * 1000);
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
  ++tick_index_;  // native tops are stamped with the tick they belong to
  tick_ = SamplerStats{};
  tick_.ticks = 1;
  if (options_.shadows) {
    uint64_t before = monotonic_ns();
    shadow_sample();
    tick_.shadow_sample_ns_total = monotonic_ns() - before;
    bool snapshot_due = options_.reconcile_every != 0 && tick_index_ % options_.reconcile_every == 0;
    if (!snapshot_due) {
      attribute();
      return;
    }
    // The shadows to compare with, by ThreadID, prepared before suspending.
    shadows_by_id_.clear();
    options_.shadows->for_each_claimed([&](ThreadShadow& s) {
      if (s.thread_id != 0 && !s.retired.load(std::memory_order_acquire)) shadows_by_id_.emplace_back(s.thread_id, &s);
    });
    std::sort(shadows_by_id_.begin(), shadows_by_id_.end());
    names_.copy_invisible(invisible_generation_, invisible_);
    reconcile_tick_ = ReconcileCounts{};
    scratch_ = ReconcileScratch{reconcile_frames_.data(), reconcile_frames_.size(), splice_buffer_.data(),
                                splice_buffer_.size(), 0, splice_frame_buffer_.data(), splice_frame_buffer_.size(), 0};
  }
  threads_.sampling_targets(targets_);  // sorted by ThreadID; allocation happens here, before suspending
  walks_.clear();
  walks_.reserve(targets_.size() + 64);
  enumerated_.resize(4096);
  unknown_.clear();
  unknown_.reserve(enumerated_.size());

  process_code_ranges().refresh();  // for the capture handler and the walk (see unwind_info.h)
  bool sampled_mode = options_.shadows == nullptr;
  if (sampled_mode) find_unchanged_threads();
  capture_native_tops();
  if (sampled_mode) read_cpu_before_walks();
  if (stopping_.load(std::memory_order_acquire)) return;

  uint64_t suspend_called = monotonic_ns();
  clr::HRESULT hr = info_.SuspendRuntime();
  tick_.suspend_wait_ns_total = monotonic_ns() - suspend_called;
  if (!clr::succeeded(hr)) {
    count(hr == clr::CORPROF_E_SUSPENSION_IN_PROGRESS ? SampleDrop::kSuspensionInProgress : SampleDrop::kSuspendFailed);
  } else {
    uint64_t suspended_at = monotonic_ns();
    walk_suspended();
    // Held until the resume is asked for: the threads it releases may preempt the sampler before the call returns
    // (16 busy threads on 2 cores kept it from returning for 20 ms, which is not time the program was stopped).
    uint64_t held = monotonic_ns() - suspended_at;
    info_.ResumeRuntime();
    tick_.suspensions = 1;
    tick_.suspended_ns_total = held;
    tick_.suspended_ns_max = held;
  }
  attribute();
  for (clr::ThreadID id : unknown_) threads_.on_seen_by_sampler(id);
}

// Sampled mode. A blocked thread is the common case (waiting on a lock, a socket, a timer) and the costly one to
// walk: it must be woken to answer the native-top signal, and its native frames are unwound under suspension.
// One CPU-clock read shows whether it has run at all since its last walk.
void Sampler::find_unchanged_threads() {
  for (auto& t : targets_) {
    auto cpu_ns = thread_cpu_ns(t->os_tid.load(std::memory_order_relaxed));
    t->unchanged = cpu_ns && t->last_walk != SampledThread::LastWalk::kNone && *cpu_ns == t->cpu_ns_before_last_walk;
  }
}

// Read after the native-top signal was answered, since answering it uses CPU time.
void Sampler::read_cpu_before_walks() {
  for (auto& t : targets_) {
    if (t->unchanged) continue;
    t->cpu_ns_before_walk = thread_cpu_ns(t->os_tid.load(std::memory_order_relaxed));
  }
}

void Sampler::capture_native_tops() {
  if (!stats_.native_tops) return;
  begin_native_capture_round();
  bool any = false;
  for (auto& t : targets_) {
    pid_t tid = t->os_tid.load(std::memory_order_relaxed);
    if (tid == 0 || t->unchanged || t->dying.load(std::memory_order_acquire)) continue;
    if (t->capture.state.load(std::memory_order_acquire) != NativeCapture::kIdle) continue;  // still answering
    t->capture.tick = tick_index_;
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
    if (target.os_tid.load(std::memory_order_relaxed) == 0) {
      // Only now, with the runtime suspended, is the ThreadID from EnumThreads certain to be alive.
      clr::DWORD tid = 0;
      if (clr::succeeded(info_.GetThreadInfo(id, &tid)) && tid != 0)
        target.os_tid.store(pid_t(tid), std::memory_order_relaxed);
    }
    if (target.unchanged) {
      target.end_walk();
      if (target.last_walk == SampledThread::LastWalk::kNoFrames) {
        count(SampleDrop::kNoFrames);
      } else if (walks_.size() < walks_.capacity()) {
        Walk again{*it};
        again.unchanged = true;
        walks_.push_back(again);
      }
      continue;
    }
    target.last_walk = SampledThread::LastWalk::kNone;  // until this walk proves whole
    FrameSink sink{frames_.data() + used, std::min(kMaxFramesPerThread, frames_.size() - used)};
    sink.native_runs = &target.native_runs;
    clr::HRESULT hr = walk_thread(info_, id, sink);
    if (options_.shadows && sink.count > 0 && hr != clr::CORPROF_E_STACKSNAPSHOT_UNSAFE)
      reconcile_walk(id, sink, clr::succeeded(hr) && !sink.overflowed);  // still under the walk guard
    target.end_walk();
    if (hr == clr::CORPROF_E_STACKSNAPSHOT_UNSAFE) {
      count(SampleDrop::kSnapshotUnsafe);
    } else if (!clr::succeeded(hr) && hr != clr::E_FAIL) {
      count(SampleDrop::kSnapshotFailed);
    } else if (sink.count == 0) {
      count(SampleDrop::kNoFrames);  // E_FAIL: no managed frames
      if (target.cpu_ns_before_walk) {
        target.last_walk = SampledThread::LastWalk::kNoFrames;
        target.cpu_ns_before_last_walk = *target.cpu_ns_before_walk;
      }
    } else if (options_.shadows) {
      // compared above
    } else {
      if (sink.overflowed) count(SampleDrop::kFramesTruncated);
      if (walks_.size() < walks_.capacity())
        walks_.push_back({*it, used, sink.count, sink.first_managed_ip, sink.first_managed_function, sink.overflowed});
      used += sink.count;
    }
  }
}

// No suspension: each thread's current node is its whole managed path (nodes are immutable once published).
void Sampler::shadow_sample() {
  options_.shadows->for_each_claimed([&](ThreadShadow& s) {
    if (s.retired.load(std::memory_order_acquire)) return;
    CallNode* node = s.current_node();
    if (node == &s.root()) return;  // no managed frame on the shadow stack: nothing to attribute
    node->self_samples.store(node->self_samples.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    ++tick_.samples;
  });
}

// Runtime suspended: compare the walk with the shadow of the same thread.
void Sampler::reconcile_walk(clr::ThreadID id, const FrameSink& sink, bool complete) {
  auto it = std::lower_bound(shadows_by_id_.begin(), shadows_by_id_.end(), std::make_pair(id, (ThreadShadow*)nullptr));
  if (it == shadows_by_id_.end() || it->first != id) return;  // a thread with no managed call hooked yet
  ThreadShadow& shadow = *it->second;
  if (shadow.retired.load(std::memory_order_acquire)) return;
  ReconcileOutcome outcome = align(shadow, sink.frames, sink.count, complete, scratch_, invisible_, hook_ticks());
  reconcile_tick_.add(outcome.counts);
  if (outcome.unexplained && !unexplained_pending_ && first_unexplained_.empty()) {
    // Keep both stacks (preallocated) to log once after the resume.
    unexplained_pending_ = true;
    unexplained_shadow_.clear();
    for (uint32_t i = 0; i < shadow.depth() && unexplained_shadow_.size() < unexplained_shadow_.capacity(); ++i)
      unexplained_shadow_.push_back(shadow.frame_function(i));
    unexplained_snapshot_.clear();
    for (size_t i = sink.count; i-- > 0 && unexplained_snapshot_.size() < unexplained_snapshot_.capacity();)
      unexplained_snapshot_.push_back(sink.frames[i]);
    unexplained_shadow_at_ = outcome.shadow_at;
    unexplained_snapshot_at_ = outcome.snapshot_at;
  }
}

void Sampler::after_reconcile() {
  const std::string dispatcher = "System.Runtime.CompilerServices.RuntimeHelpers.DispatchTailCalls";
  for (size_t s = 0; s < scratch_.splice_count; ++s) {
    const Splice& splice = scratch_.splices[s];
    const SampleFrame* frames = scratch_.splice_frames + splice.first;
    if (!splice.native) {
      // Managed frames the hooks did not see: the helper-based tail-call dispatcher is explained by tail calls.
      uint64_t dispatchers = 0;
      for (uint32_t i = 0; i < splice.count; ++i)
        if (!frames[i].native && names_.lookup(frames[i].id).name == dispatcher) ++dispatchers;
      auto& uninstrumented = reconcile_tick_.spliced[size_t(ReconcileSplice::kUninstrumented)];
      uninstrumented -= std::min(uninstrumented, dispatchers);
      reconcile_tick_.spliced[size_t(ReconcileSplice::kTailcallDispatcher)] += dispatchers;
    }
    RememberedSplice& remembered = splices_[splice.node];
    if (splice.count == 0) {
      ++remembered.seen_without;
    } else {
      ++remembered.seen_with;
      remembered.frames.assign(frames, frames + splice.count);
    }
  }
  reconcile_total_.add(reconcile_tick_);
  if (unexplained_pending_) {
    unexplained_pending_ = false;
    auto name = [&](const SampleFrame& f) {
      return f.native ? "[native 0x" + std::to_string(f.id) + "]" : names_.lookup(f.id).name;
    };
    std::string text = "unexplained difference between the shadow stack and a snapshot (root first):\n";
    size_t rows = std::max(unexplained_shadow_.size(), unexplained_snapshot_.size());
    for (size_t r = 0; r < rows; ++r) {
      std::string left = r < unexplained_shadow_.size() ? names_.lookup(unexplained_shadow_[r]).name : "";
      std::string right = r < unexplained_snapshot_.size() ? name(unexplained_snapshot_[r]) : "";
      std::string mark = r == unexplained_shadow_at_ ? " <shadow" : "";
      if (r == unexplained_snapshot_at_) mark += " <snapshot";
      char line[512];
      std::snprintf(line, sizeof line, "  %-70.70s | %-70.70s%s\n", left.c_str(), right.c_str(), mark.c_str());
      text += line;
    }
    first_unexplained_ = text;
    log::always(text);
  }
}

SpliceMap Sampler::splices() {
  std::lock_guard<std::mutex> lock(tree_mutex_);
  return splices_;
}

ReconcileCounts Sampler::reconcile_counts() {
  std::lock_guard<std::mutex> lock(tree_mutex_);
  return reconcile_total_;
}

std::string Sampler::first_unexplained() {
  std::lock_guard<std::mutex> lock(tree_mutex_);
  return first_unexplained_;
}

// Pushes the thread's native top onto stack_ if it belongs to this walk; consumes or withdraws the capture.
Sampler::NativeTop Sampler::stitch_native_top(NativeCapture& capture, const Walk& walk) {
  uint32_t state = capture.state.load(std::memory_order_acquire);
  if (state == NativeCapture::kIdle) return NativeTop::kNone;  // none was requested
  if (state != NativeCapture::kDone) {
    if (cancel_native_capture(capture)) ++tick_.drops[static_cast<size_t>(SampleDrop::kNativeTopTimeout)];
    return NativeTop::kLost;  // a capture finishing now is counted stale at the next tick
  }
  NativeTop top = NativeTop::kNone;
  if (capture.faulted) {
    ++tick_.drops[static_cast<size_t>(SampleDrop::kNativeTopFault)];
    top = NativeTop::kLost;
  } else if (capture.tick != tick_index_) {
    ++tick_.drops[static_cast<size_t>(SampleDrop::kNativeTopStale)];  // answered too late, for an earlier tick
    top = NativeTop::kLost;
  } else if (capture.count > 0) {
    // It belongs here only if the native code returns where the walk's top managed frame is (a thread still in
    // native code), or into a stub the walk does not show; otherwise the thread left native code before the
    // suspension. Precompiled (ReadyToRun) code enters native code through a helper that records its own return
    // address, a few bytes before the native call's: the walk then shows the frame there (measured: 9 and 22
    // bytes, in Thread.Join and a class constructor). A top that never reached JIT-compiled code (stop_ip 0)
    // connects to no managed frame.
    constexpr uintptr_t kTransitionSlack = 64;
    clr::FunctionID at_stop = 0;
    bool known = capture.stop_ip != 0 &&
                 clr::succeeded(info_.GetFunctionFromIP(reinterpret_cast<clr::LPCBYTE>(capture.stop_ip), &at_stop));
    bool into_top = capture.stop_ip == walk.first_managed_ip ||
                    (known && at_stop != 0 && at_stop == walk.first_managed_function &&
                     capture.stop_ip > walk.first_managed_ip &&
                     capture.stop_ip - walk.first_managed_ip <= kTransitionSlack);
    bool into_stub = !into_top && capture.stop_ip != 0 && (!known || at_stop == 0);
    if (into_top || into_stub) {
      top = NativeTop::kStitched;
      for (uint32_t i = 0; i < capture.count; ++i) stack_.push_back({capture.frames[i], true});
    } else {
      ++tick_.drops[static_cast<size_t>(SampleDrop::kNativeTopStale)];
      top = NativeTop::kLost;
    }
  }
  capture.state.store(NativeCapture::kIdle, std::memory_order_release);
  return top;
}

void Sampler::attribute() {
  std::lock_guard<std::mutex> lock(tree_mutex_);
  if (stopped_) return;
  if (options_.shadows && tick_.suspensions) after_reconcile();
  for (Walk& walk : walks_) {
    SampledThread& t = *walk.thread;
    ++tick_.samples;
    if (walk.unchanged) {
      t.tree.add_again(t.last_leaf);
      (t.last_native_top ? t.native_samples : t.managed_samples) += 1;
      ++tick_.unchanged_samples;
      continue;
    }
    stack_.clear();
    // Leaf first: the native top (if the thread was in native code), then what the walk saw.
    NativeTop top = stitch_native_top(t.capture, walk);
    for (size_t i = 0; i < walk.count; ++i) stack_.push_back(frames_[walk.first + i]);
    std::reverse(stack_.begin(), stack_.end());
    uint32_t leaf = t.tree.add(stack_.data(), stack_.size());
    (top == NativeTop::kStitched ? t.native_samples : t.managed_samples) += 1;
    if (top != NativeTop::kLost && !walk.truncated && t.cpu_ns_before_walk) {  // a whole sample, worth counting again
      t.last_walk = SampledThread::LastWalk::kSample;
      t.last_leaf = leaf;
      t.last_native_top = top == NativeTop::kStitched;
      t.cpu_ns_before_last_walk = *t.cpu_ns_before_walk;
    }
    for (size_t i = 0; i < walk.count; ++i)
      if (!frames_[walk.first + i].native) names_.ensure(frames_[walk.first + i].id);
  }
  tick_.tick_ns_total = tick_.tick_ns_max = monotonic_ns() - tick_start_ns_;
  if (tick_.suspensions) {
    tick_.snapshot_ticks = 1;
    tick_.snapshot_ns_total = tick_.tick_ns_total - tick_.shadow_sample_ns_total;
  }
  // Captures of threads this tick did not walk are not kept for a later one.
  for (auto& t : targets_)
    if (t->capture.state.load(std::memory_order_acquire) == NativeCapture::kDone)
      t->capture.state.store(NativeCapture::kIdle, std::memory_order_release);
  stats_.ticks += tick_.ticks;
  stats_.samples += tick_.samples;
  stats_.unchanged_samples += tick_.unchanged_samples;
  stats_.suspensions += tick_.suspensions;
  stats_.suspend_wait_ns_total += tick_.suspend_wait_ns_total;
  stats_.suspended_ns_total += tick_.suspended_ns_total;
  stats_.suspended_ns_max = std::max(stats_.suspended_ns_max, tick_.suspended_ns_max);
  stats_.tick_ns_total += tick_.tick_ns_total;
  stats_.shadow_sample_ns_total += tick_.shadow_sample_ns_total;
  stats_.snapshot_ticks += tick_.snapshot_ticks;
  stats_.snapshot_ns_total += tick_.snapshot_ns_total;
  stats_.tick_ns_max = std::max(stats_.tick_ns_max, tick_.tick_ns_max);
  stats_.cpu_ns_total = current_thread_cpu_ns();
  for (size_t r = 0; r < kSampleDropCount; ++r) stats_.drops[r] += tick_.drops[r];
}

}  // namespace umbra
