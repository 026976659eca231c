#include "sampler/signal_sampling.h"

#include <algorithm>
#include <chrono>

#include "sampler/shadow_sampling.h"
#include "sampler/walk_comparison.h"
#include "snapshot/code_ranges.h"
#include "snapshot/native_capture.h"
#include "snapshot/thread_cpu_time.h"

namespace umbra {
namespace {

// Threads answer within microseconds unless they are not scheduled (a loaded machine); the wait sleeps.
std::chrono::milliseconds answer_wait(uint32_t interval_ms) {
  return std::chrono::milliseconds(std::clamp<uint32_t>(interval_ms, 2, 10));
}

// Cuts a stack (leaf first) after its `managed` innermost managed frames: all that a walk cut at its frame limit
// can be compared with.
void keep_innermost_managed(std::vector<SampleFrame>& stack, size_t managed) {
  size_t end = 0;
  for (size_t seen = 0; end < stack.size() && seen < managed; ++end) seen += stack[end].native ? 0 : 1;
  stack.resize(end);
}

size_t managed_frames(const std::vector<SampleFrame>& stack) {
  return size_t(std::count_if(stack.begin(), stack.end(), [](const SampleFrame& f) { return !f.native; }));
}

}  // namespace

SignalSampling::SignalSampling(clr::ICorProfilerInfo10& info, ThreadRegistry& threads, SchedulerStates& states,
                               const ShadowPool* shadows, FunctionNames& names, SpliceMap* splice_votes,
                               bool every_method_hooked)
    : threads_(threads),
      states_(states),
      shadows_(shadows),
      splice_votes_(splice_votes),
      every_method_hooked_(every_method_hooked),
      methods_(info, names),
      names_(names) {
  leaf_first_.reserve(NativeCapture::kFirstFrames);
  root_first_.reserve(NativeCapture::kFirstFrames);
}

ThreadShadow* SignalSampling::shadow_of(clr::ThreadID id) const {
  auto it = std::lower_bound(shadows_by_id_.begin(), shadows_by_id_.end(), std::make_pair(id, (ThreadShadow*)nullptr));
  return it == shadows_by_id_.end() || it->first != id ? nullptr : it->second;
}

void SignalSampling::capture(uint64_t tick_index, uint32_t interval_ms) {
  threads_.sampling_targets(targets_);
  shadows_by_id_.clear();
  if (shadows_) {
    shadows_->for_each_claimed([&](ThreadShadow& s) {
      if (s.thread_id != 0 && !s.retired.load(std::memory_order_acquire)) shadows_by_id_.emplace_back(s.thread_id, &s);
    });
  }
  std::sort(shadows_by_id_.begin(), shadows_by_id_.end());
  process_code_ranges().refresh();  // for the handler's and the resolution's code/JIT-code test
  asked_.assign(targets_.size(), Asked::kNotAsked);
  cpu_reads_.assign(targets_.size(), CpuRead{});
  begin_native_capture_round();
  bool any = false;
  for (size_t i = 0; i < targets_.size(); ++i) {
    SampledThread& t = *targets_[i];
    pid_t tid = t.os_tid.load(std::memory_order_relaxed);
    if (tid == 0 || t.dying.load(std::memory_order_acquire)) continue;
    if (t.sampled_by_snapshot) {
      asked_[i] = Asked::kBySnapshot;  // its sample comes from this tick's walk
      continue;
    }
    // A thread that has used no CPU time since it answered last (and whose shadow stack has not moved) has the same
    // stack: its sample counts again, off a CPU. Read before the signal, whose answer uses CPU time.
    auto cpu = thread_cpu_ns(tid);
    const ThreadShadow* shadow = shadow_of(t.thread_id);
    bool same_shadow_node = shadow == nullptr || shadow->current_node() == t.capture.shadow_node;
    if (t.last_signal_sample && cpu && *cpu == t.last_signal_sample->cpu_ns && same_shadow_node) {
      asked_[i] = Asked::kUnchanged;
      continue;
    }
    if (cpu) cpu_reads_[i] = CpuRead{t.last_signal_sample ? t.last_signal_sample->cpu_ns : 0, *cpu};
    // An answer that came after its tick's wait is discarded; a thread still answering is left alone.
    uint32_t done = NativeCapture::kDone;
    t.capture.state.compare_exchange_strong(done, NativeCapture::kIdle, std::memory_order_acq_rel);
    if (t.capture.state.load(std::memory_order_acquire) != NativeCapture::kIdle) continue;
    t.capture.tick = tick_index;
    t.capture.through_managed = true;
    t.capture.shadow = shadow;
    if (request_native_capture(tid, t.capture)) {
      asked_[i] = Asked::kAsked;
      any = true;
    }
  }
  if (!any) return;
  auto pending = [&] {
    for (size_t i = 0; i < targets_.size(); ++i) {
      if (asked_[i] != Asked::kAsked) continue;
      uint32_t s = targets_[i]->capture.state.load(std::memory_order_acquire);
      if (s == NativeCapture::kRequested || s == NativeCapture::kCapturing) return true;
    }
    return false;
  };
  wait_for_native_captures(pending, std::chrono::steady_clock::now() + answer_wait(interval_ms));
  // A stack deeper than its capture held is asked for again at once, with room for all of it: once in a thread's
  // life, so that its first deep sample keeps its roots too.
  bool again = false;
  for (size_t i = 0; i < targets_.size(); ++i) {
    NativeCapture& capture = targets_[i]->capture;
    if (asked_[i] != Asked::kAsked || !capture.truncated || capture.capacity() == NativeCapture::kMaxFrames) continue;
    uint32_t done = NativeCapture::kDone;
    if (!capture.state.compare_exchange_strong(done, NativeCapture::kIdle, std::memory_order_acq_rel)) continue;
    if (!again) begin_native_capture_round();
    make_room_if_truncated(capture);
    if (!request_native_capture(targets_[i]->os_tid.load(std::memory_order_relaxed), capture)) {
      asked_[i] = Asked::kNotAsked;
      continue;
    }
    again = true;
  }
  if (again) wait_for_native_captures(pending, std::chrono::steady_clock::now() + answer_wait(interval_ms));
}

// The shadow stack alone gives a sample: a thread that could not be asked, did not answer in time, or is not yet
// known to the sampler (the main thread until a snapshot meets it). Threads without a hooked frame have none.
void SignalSampling::count_on_shadow(SampledThread* thread, const ThreadShadow* shadow, bool on_cpu,
                                     SamplerStats& tick) {
  CallNode* node = shadow ? shadow->current_node() : nullptr;
  if (node == nullptr || !is_method_node(*node)) return;
  add_node_sample(*node, on_cpu);
  ++tick.samples;
  ++tick.shadow_only_samples;
  if (thread) thread->last_signal_sample.reset();  // asked again at the next tick
}

void SignalSampling::attribute(SamplerStats& tick) {
  covered_.clear();
  for (size_t i = 0; i < targets_.size(); ++i) {
    SampledThread& t = *targets_[i];
    ThreadShadow* shadow = shadow_of(t.thread_id);
    if (shadow) covered_.push_back(shadow);
    if (asked_[i] == Asked::kBySnapshot) continue;
    if (asked_[i] == Asked::kNotAsked) {
      if (t.dying.load(std::memory_order_acquire)) continue;
      if (shadows_) count_on_shadow(&t, shadow, scheduler_says_on_cpu(i), tick);
      else if (t.os_tid.load(std::memory_order_relaxed) == 0) tick.count(SampleDrop::kThreadNotYetKnown);
      else tick.count(SampleDrop::kNativeTopTimeout);  // still answering an earlier tick's signal
      continue;
    }
    if (asked_[i] == Asked::kUnchanged) {
      const SampledThread::LastSignalSample& last = *t.last_signal_sample;
      if (last.tree == nullptr && last.node == nullptr) {
        tick.count(SampleDrop::kNoFrames);
        continue;
      }
      if (last.tree) last.tree->add_again(last.leaf, false);
      else add_node_sample(*last.node, false);
      if (!shadows_) (last.native_top ? t.native_samples : t.managed_samples) += 1;
      ++tick.samples;
      ++tick.unchanged_samples;
      if (last.above_hooks) ++tick.above_hooks_samples;
      if (last.end != StackEnd::kThreadStart) tick.count_incomplete(last.end);
      continue;
    }
    NativeCapture& capture = t.capture;
    uint32_t state = capture.state.load(std::memory_order_acquire);
    if (state != NativeCapture::kDone) {
      // Not scheduled in time. The capture is withdrawn, or left to finish and be discarded at the next tick.
      cancel_native_capture(capture);
      if (shadow && is_method_node(*shadow->current_node()))
        count_on_shadow(&t, shadow, scheduler_says_on_cpu(i), tick);
      else
        tick.count(SampleDrop::kNativeTopTimeout);
      continue;
    }
    // On its CPU unless the signal found it waiting in a system call: the state of the stack's own instant, without
    // reading the scheduler's (a /proc file, 5 us a thread).
    const bool on_cpu = !capture.in_system_call;
    attribute_stack(t, on_cpu, tick);
    auto cpu = thread_cpu_ns(t.os_tid.load(std::memory_order_relaxed));
    if (cpu) t.cpu_ns_seen.store(*cpu, std::memory_order_relaxed);
    if (t.last_signal_sample && cpu && stood_still_since_answer(capture, *cpu)) t.last_signal_sample->cpu_ns = *cpu;
    else t.last_signal_sample.reset();
    capture.state.store(NativeCapture::kIdle, std::memory_order_release);
  }
  std::sort(covered_.begin(), covered_.end());
  for (const auto& [id, shadow] : shadows_by_id_)
    if (!std::binary_search(covered_.begin(), covered_.end(), shadow))
      count_on_shadow(nullptr, shadow, shadow_thread_on_cpu(*shadow, states_), tick);
}

// For a thread sampled without its answer: whether the scheduler has it running or ready to run, if it has run since
// its last sample.
bool SignalSampling::scheduler_says_on_cpu(size_t target) {
  const CpuRead& read = cpu_reads_[target];
  return read.now != 0 && states_.on_cpu(targets_[target]->os_tid.load(std::memory_order_relaxed), read.last, read.now);
}

void SignalSampling::count_on_node(SampledThread& thread, CallNode* node, bool on_cpu, SamplerStats& tick) {
  add_node_sample(*node, on_cpu);
  ++tick.samples;
  thread.last_signal_sample = SampledThread::LastSignalSample{0, nullptr, 0, node};
}

// The method the return address on top of the interrupted stack returns into (a frameless leaf's caller), or 0. The
// handler keeps that word only when it returns into managed code; 0 is not looked up (an address not found makes
// MethodsByIp read the process's mappings again). A method replaced on stack keeps the return address into its
// original code (`replaced_ip`, a frame resolve dropped) on top of its frame: that is no caller.
clr::FunctionID SignalSampling::caller_on_top(const NativeCapture& capture, uintptr_t replaced_ip) {
  if (capture.word_at_sp == 0 || capture.word_at_sp == replaced_ip) return 0;
  return methods_.function_at(capture.word_at_sp - 1);
}

// The capture's frames as methods and native IPs into leaf_first_, aligned with the shadow node `node` (nullptr:
// none).
SignalStackAlignment SignalSampling::resolve_and_align(const NativeCapture& capture, const CallNode* node) {
  uintptr_t replaced_ip = methods_.resolve(capture, leaf_first_);
  for (const SampleFrame& f : leaf_first_)
    if (f.native) native_ips_.push_back(f.id);
  return align_with_shadow(leaf_first_.data(), leaf_first_.size(), node, caller_on_top(capture, replaced_ip),
                           capture.truncated);
}

// The capture's frames as methods and native IPs, leaf first, with the caller a frameless leaf hid put back.
void SignalSampling::managed_stack_of(const NativeCapture& capture) {
  auto at = resolve_and_align(capture, nullptr);
  if (at.leaf_caller) leaf_first_.insert(leaf_first_.begin() + 1, SampleFrame{at.leaf_caller, false});
}

// A stack deeper than its capture holds is taken whole from the next request on: the room is made while no handler
// can write the capture (its answer is in, the runtime not suspended).
void SignalSampling::make_room_if_truncated(NativeCapture& capture) {
  if (capture.truncated) capture.hold_frames(NativeCapture::kMaxFrames);
}

// The runtime's walks leave out its managed exception dispatch (.NET 9 and later: System.Runtime.EH, running above
// the frame that threw); a stack by signal shows it. Drops those frames from leaf_first_, naming its methods first
// (they are known as dispatch by name); whether any was dropped. Only for a walk that differs by extra frames.
bool SignalSampling::drop_frames_walks_never_show() {
  for (const SampleFrame& f : leaf_first_)
    if (!f.native) names_.ensure(f.id);
  names_.copy_invisible(invisible_generation_, invisible_);
  const size_t before = leaf_first_.size();
  leaf_first_.erase(std::remove_if(leaf_first_.begin(), leaf_first_.end(),
                                   [&](const SampleFrame& f) {
                                     return !f.native && std::binary_search(invisible_.begin(), invisible_.end(), f.id);
                                   }),
                    leaf_first_.end());
  return leaf_first_.size() != before;
}

void SignalSampling::attribute_stack(SampledThread& thread, bool on_cpu, SamplerStats& tick) {
  using Outcome = SignalStackAlignment::Outcome;
  NativeCapture& capture = thread.capture;
  CallNode* node = const_cast<CallNode*>(capture.shadow_node);
  bool hooked_frame = node && is_method_node(*node);
  SignalStackAlignment at{Outcome::kUnaligned};
  if (!capture.faulted && !capture.loader_busy) at = resolve_and_align(capture, node);
  if (splice_votes_ && hooked_frame && (at.outcome == Outcome::kOnHookedFrame || at.outcome == Outcome::kAboveHooked))
    vote_splices(*splice_votes_, leaf_first_.data(), leaf_first_.size(), node,
                 at.outcome == Outcome::kOnHookedFrame ? 0 : at.above, capture.end == StackEnd::kThreadStart, run_);
  // Every method hooked: a managed frame above the node is a method whose enter hook has not run yet (its prologue)
  // or one hooks never see (a stub): the sample is the node's, with only the native frames on top of the stack.
  if (every_method_hooked_ && at.outcome == Outcome::kAboveHooked) {
    size_t native_top = 0;
    while (native_top < at.above && leaf_first_[native_top].native) ++native_top;
    if (native_top == 0) at.outcome = Outcome::kOnHookedFrame;
    at.above = native_top;
  }
  switch (at.outcome) {
    case Outcome::kOnHookedFrame: count_on_node(thread, node, on_cpu, tick); return;
    case Outcome::kUnaligned:
      if (hooked_frame) {
        count_on_node(thread, node, on_cpu, tick);
        ++tick.shadow_only_samples;
      } else {  // not unwound, or the unwind faulted
        tick.count(capture.loader_busy ? SampleDrop::kLoaderBusy : SampleDrop::kNativeTopFault);
        thread.last_signal_sample.reset();
      }
      return;
    case Outcome::kNoManagedFrame:  // a thread that has not run managed code, or left it for good
      tick.count(SampleDrop::kNoFrames);
      thread.last_signal_sample = SampledThread::LastSignalSample{};
      return;
    case Outcome::kTruncated:
      tick.count(SampleDrop::kFramesTruncated);
      if (shadows_) {
        thread.last_signal_sample.reset();
        return;
      }
      break;  // sampled mode keeps the innermost frames, as the suspending walker does
    case Outcome::kAboveHooked:
    case Outcome::kNoHookedFrame: break;
  }
  // Sampled mode keeps the whole stack: the native start-up below the outermost managed frame is the thread's root
  // (folded in the reports people read), as DoStackSnapshot's walk has it.
  if (!shadows_) at.above = leaf_first_.size();
  const size_t n = leaf_first_.size();
  root_first_.assign(leaf_first_.rbegin() + ptrdiff_t(n - at.above), leaf_first_.rend());
  if (at.leaf_caller) root_first_.insert(root_first_.end() - 1, SampleFrame{at.leaf_caller, false});
  // Sampled mode: a stack that stopped short of its thread's start is kept, under a marker root, and counted by why.
  const StackEnd end = shadows_ ? StackEnd::kThreadStart : capture.end;
  if (end != StackEnd::kThreadStart) {
    root_first_.insert(root_first_.begin(), kStackIncompleteFrame);
    tick.count_incomplete(end);
  }
  SampledTree& tree = hooked_frame ? above_[node] : thread.tree;
  uint32_t leaf = tree.add(root_first_.data(), root_first_.size(), on_cpu);
  ++tick.samples;
  if (hooked_frame) ++tick.above_hooks_samples;
  bool native_top = leaf_first_[0].native;
  if (!shadows_) (native_top ? thread.native_samples : thread.managed_samples) += 1;
  thread.last_signal_sample =
      SampledThread::LastSignalSample{0, &tree, leaf, nullptr, hooked_frame, native_top, end};
  // A stack that may lack a method is not counted again while the thread stands still: it is taken again.
  if (methods_.missed_unmapped_code()) thread.last_signal_sample.reset();
}

void SignalSampling::note_check(SampledThread& thread, const WalkComparison& c, SamplerStats& tick) {
  ++thread.walks_checked;
  thread.walk_frames_checked += c.frames;
  thread.walk_frames_agreed += c.agreed;
  if (!check_says_fall_back(c, thread.walks_differing_in_a_row) || thread.sampled_by_snapshot) return;
  thread.sampled_by_snapshot = true;
  thread.last_signal_sample.reset();
  ++sampled_by_snapshot_;
  ++tick.threads_sampled_by_snapshot;
}

// A thread sampled from snapshot walks: the walk of this tick's suspension is its sample, as the suspending walker
// would count it (the native frames between managed ones, none above the innermost).
void SignalSampling::add_snapshot_sample(SampledThread& thread, const StackTick& walks, const StackTick::Walk& walk,
                                         SamplerStats& tick) {
  if (walk.count == 0) {
    tick.count(SampleDrop::kNoFrames);
    return;
  }
  uint64_t cpu_ns = thread.cpu_ns_seen.load(std::memory_order_relaxed);
  bool on_cpu = states_.on_cpu(thread.os_tid.load(std::memory_order_relaxed), cpu_ns);
  thread.cpu_ns_seen.store(cpu_ns, std::memory_order_relaxed);
  const SampleFrame* frames = walks.frames() + walk.first;
  root_first_.assign(std::reverse_iterator(frames + walk.count), std::reverse_iterator(frames));
  thread.tree.add(root_first_.data(), root_first_.size(), on_cpu);
  if (walk.truncated) tick.count(SampleDrop::kFramesTruncated);
  (frames[0].native ? thread.native_samples : thread.managed_samples) += 1;
  for (size_t i = 0; i < walk.count; ++i)
    if (!frames[i].native) names_.ensure(frames[i].id);
  ++tick.samples;
  ++tick.samples_by_snapshot;
}

// The stacks the threads gave under the suspension against DoStackSnapshot's walks of the same moment. A thread
// stopped at a safe point waits inside the runtime, so both walks see the same managed frames.
void SignalSampling::check_against(const StackTick& walks, uint64_t tick_index, SamplerStats& tick) {
  for (const StackTick::Walk& walk : walks.walks()) {
    if (walk.unchanged) continue;
    if (walk.thread->sampled_by_snapshot) add_snapshot_sample(*walk.thread, walks, walk, tick);
    NativeCapture& capture = walk.thread->capture;
    uint32_t state = capture.state.load(std::memory_order_acquire);
    if (capture.tick != suspended_capture_stamp(tick_index) || state == NativeCapture::kIdle) continue;  // not asked
    WalkComparison c;
    snapshot_.assign(walks.frames() + walk.first, walks.frames() + walk.first + walk.count);
    c.frames = uint32_t(managed_frames(snapshot_));
    c.differs = true;
    if (state != NativeCapture::kDone) {
      cancel_native_capture(capture);  // or left to finish and be discarded at the next request
      c.difference = capture.signal_blocked ? WalkDifference::kSignalBlocked : WalkDifference::kNoAnswer;
      c.frames = 0;  // nothing was compared: a thread not scheduled in time (a loaded machine) says nothing of the walk
    } else if (capture.faulted) {
      c.difference = WalkDifference::kFaulted;
    } else if (capture.loader_busy) {
      c.difference = WalkDifference::kLoaderBusy;
      c.frames = 0;  // nothing to compare
    } else {
      managed_stack_of(capture);  // as a sample would have it
      // A walk cut at its frame limit is compared on the frames it holds (the other's beyond are not checked).
      if (walk.truncated) keep_innermost_managed(leaf_first_, c.frames);
      if (capture.truncated) keep_innermost_managed(snapshot_, managed_frames(leaf_first_));
      c = compare_walks(snapshot_.data(), snapshot_.size(), leaf_first_.data(), leaf_first_.size());
      if (c.differs && c.difference == WalkDifference::kExtraFrames && drop_frames_walks_never_show())
        c = compare_walks(snapshot_.data(), snapshot_.size(), leaf_first_.data(), leaf_first_.size());
      if (capture.truncated) {
        c.differs = true;
        c.difference = WalkDifference::kTruncated;
      }
    }
    if (state == NativeCapture::kDone) {
      make_room_if_truncated(capture);
      capture.state.store(NativeCapture::kIdle, std::memory_order_release);
    }
    tick.add_walk_check(c);
    note_check(*walk.thread, c, tick);
  }
  // Answers of threads the walks did not cover are not kept.
  for (auto& t : walks.targets())
    if (t->capture.tick == suspended_capture_stamp(tick_index) &&
        t->capture.state.load(std::memory_order_acquire) == NativeCapture::kDone)
      t->capture.state.store(NativeCapture::kIdle, std::memory_order_release);
}

}  // namespace umbra
