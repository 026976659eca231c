#include "sampler/sampled_attribution.h"

#include <algorithm>

#include "snapshot/code_ranges.h"

namespace umbra {
namespace {

constexpr size_t kMaxStackFrames = 4096 + NativeCapture::kFirstFrames;

}  // namespace

SampledAttribution::SampledAttribution(clr::ICorProfilerInfo10& info, FunctionNames& names)
    : info_(info), names_(names) {
  stack_.reserve(kMaxStackFrames);
}

void SampledAttribution::add(const StackTick& walks, uint64_t tick_index, SamplerStats& tick) {
  const SampleFrame* frames = walks.frames();
  for (const StackTick::Walk& walk : walks.walks()) {
    SampledThread& t = *walk.thread;
    ++tick.samples;
    if (walk.unchanged) {
      t.tree.add_again(t.last_leaf, t.on_cpu);
      (t.last_native_top ? t.native_samples : t.managed_samples) += 1;
      ++tick.unchanged_samples;
      continue;
    }
    if (walk.truncated) tick.count(SampleDrop::kFramesTruncated);
    stack_.clear();
    // Leaf first: the native top (if the thread was in native code), then what the walk saw.
    NativeTop top = stitch_native_top(t.capture, walk, tick_index, tick);
    for (size_t i = 0; i < walk.count; ++i) stack_.push_back(frames[walk.first + i]);
    std::reverse(stack_.begin(), stack_.end());
    for (const SampleFrame& f : stack_)
      if (f.native) native_ips_.push_back(f.id);
    uint32_t leaf = t.tree.add(stack_.data(), stack_.size(), t.on_cpu);
    (top == NativeTop::kStitched ? t.native_samples : t.managed_samples) += 1;
    bool whole = top == NativeTop::kNone || top == NativeTop::kStitched;
    // A native top was taken before the suspension; the thread, not stopped by it, may have run on since.
    bool still = top != NativeTop::kStitched ||
                 (t.cpu_ns_before_walk && stood_still_since_answer(t.capture, *t.cpu_ns_before_walk));
    if (whole && still && !walk.truncated && t.cpu_ns_before_walk) {  // worth counting again while it stands still
      t.last_walk = SampledThread::LastWalk::kSample;
      t.last_leaf = leaf;
      t.last_native_top = top == NativeTop::kStitched;
      t.cpu_ns_before_last_walk = *t.cpu_ns_before_walk;
    }
    for (size_t i = 0; i < walk.count; ++i)
      if (!frames[walk.first + i].native) names_.ensure(frames[walk.first + i].id);
  }
  // Captures of threads this tick did not walk are not kept for a later one.
  for (auto& t : walks.targets())
    if (t->capture.state.load(std::memory_order_acquire) == NativeCapture::kDone)
      t->capture.state.store(NativeCapture::kIdle, std::memory_order_release);
}

// Pushes the thread's native top onto stack_ if it belongs to this walk; consumes or withdraws the capture.
SampledAttribution::NativeTop SampledAttribution::stitch_native_top(NativeCapture& capture,
                                                                    const StackTick::Walk& walk,
                                                                    uint64_t tick_index, SamplerStats& tick) {
  uint32_t state = capture.state.load(std::memory_order_acquire);
  if (state == NativeCapture::kIdle) return NativeTop::kNone;  // none was requested
  if (state != NativeCapture::kDone) {
    if (cancel_native_capture(capture)) tick.count(SampleDrop::kNativeTopTimeout);
    return NativeTop::kLost;  // a capture finishing now is counted stale at the next tick
  }
  NativeTop top = NativeTop::kEmpty;
  if (capture.faulted || capture.loader_busy) {
    tick.count(capture.faulted ? SampleDrop::kNativeTopFault : SampleDrop::kLoaderBusy);
    top = NativeTop::kLost;
  } else if (capture.tick != tick_index) {
    tick.count(SampleDrop::kNativeTopStale);  // answered too late, for an earlier tick
    top = NativeTop::kLost;
  } else if (capture.count > 0) {
    // It belongs here only if the native code returns where the walk's top managed frame is (a thread still in
    // native code), or into a stub the walk does not show; otherwise the thread left native code before the
    // suspension. Precompiled (ReadyToRun) code enters native code through a helper that records its own return
    // address, a few bytes before the native call's: the walk then shows the frame there. A top that never
    // reached JIT-compiled code (stop_ip 0) connects to no managed frame.
    constexpr uintptr_t kTransitionSlack = 64;
    clr::FunctionID at_stop = 0;
    bool known = in_managed_code(capture.stop_ip) &&  // the runtime's lookup is not made for any address
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
      tick.count(SampleDrop::kNativeTopStale);
      top = NativeTop::kLost;
    }
  }
  capture.state.store(NativeCapture::kIdle, std::memory_order_release);
  return top;
}

}  // namespace umbra
