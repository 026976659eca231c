#include "sampler/reconciliation.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "hooks/tick_clock.h"
#include "util/log.h"

namespace umbra {
namespace {

constexpr size_t kMaxFramesPerThread = 4096;
constexpr size_t kMaxSplicesPerTick = size_t(1) << 16;
constexpr size_t kMaxSpliceFramesPerTick = size_t(1) << 17;

}  // namespace

Reconciliation::Reconciliation(FunctionNames& names)
    : names_(names), splice_buffer_(kMaxSplicesPerTick), splice_frame_buffer_(kMaxSpliceFramesPerTick) {
  root_first_.resize(kMaxFramesPerThread);
  unexplained_shadow_.reserve(kMaxFramesPerThread);
  unexplained_snapshot_.reserve(kMaxFramesPerThread);
}

void Reconciliation::prepare(const ShadowPool& pool) {
  shadows_by_id_.clear();
  pool.for_each_claimed([&](ThreadShadow& s) {
    if (s.thread_id != 0 && !s.retired.load(std::memory_order_acquire)) shadows_by_id_.emplace_back(s.thread_id, &s);
  });
  std::sort(shadows_by_id_.begin(), shadows_by_id_.end());
  names_.copy_invisible(invisible_generation_, invisible_);
  tick_ = ReconcileCounts{};
  scratch_ = ReconcileScratch{root_first_.data(),             root_first_.size(), splice_buffer_.data(),
                              splice_buffer_.capacity(),       0,                  splice_frame_buffer_.data(),
                              splice_frame_buffer_.capacity(), 0};
}

void Reconciliation::on_walk(clr::ThreadID thread, const FrameSink& walk, bool complete) {
  auto it = std::lower_bound(shadows_by_id_.begin(), shadows_by_id_.end(),
                             std::make_pair(thread, static_cast<ThreadShadow*>(nullptr)));
  if (it == shadows_by_id_.end() || it->first != thread) return;  // a thread with no managed call hooked yet
  ThreadShadow& shadow = *it->second;
  if (shadow.retired.load(std::memory_order_acquire)) return;
  ReconcileOutcome outcome = align(shadow, walk.frames, walk.count, complete, scratch_, invisible_, hook_ticks());
  tick_.add(outcome.counts);
  if (outcome.unexplained && !unexplained_pending_ && first_unexplained_.empty())
    keep_unexplained(shadow, walk, outcome);
}

// Runtime suspended: both stacks into preallocated buffers, to be logged after the resume.
void Reconciliation::keep_unexplained(const ThreadShadow& shadow, const FrameSink& walk,
                                      const ReconcileOutcome& outcome) {
  unexplained_pending_ = true;
  unexplained_shadow_.clear();
  for (uint32_t i = 0; i < shadow.depth() && unexplained_shadow_.size() < unexplained_shadow_.capacity(); ++i)
    unexplained_shadow_.push_back(shadow.frame_function(i));
  unexplained_snapshot_.clear();
  for (size_t i = walk.count; i-- > 0 && unexplained_snapshot_.size() < unexplained_snapshot_.capacity();)
    unexplained_snapshot_.push_back(walk.frames[i]);
  unexplained_shadow_at_ = outcome.shadow_at;
  unexplained_snapshot_at_ = outcome.snapshot_at;
}

// Managed frames the hooks did not see are uninstrumented code, except the runtime's helper-based tail-call
// dispatcher, which tail calls explain.
void Reconciliation::classify_tailcall_dispatchers(const Splice& splice, const SampleFrame* frames) {
  uint64_t dispatchers = 0;
  for (uint32_t i = 0; i < splice.count; ++i)
    if (!frames[i].native && names_.is_tailcall_dispatcher(frames[i].id)) ++dispatchers;
  auto& uninstrumented = tick_.spliced[size_t(ReconcileSplice::kUninstrumented)];
  uninstrumented -= std::min(uninstrumented, dispatchers);
  tick_.spliced[size_t(ReconcileSplice::kTailcallDispatcher)] += dispatchers;
}

void Reconciliation::after_resume() {
  for (size_t s = 0; s < scratch_.splice_count; ++s) {
    const Splice& splice = scratch_.splices[s];
    const SampleFrame* frames = scratch_.splice_frames + splice.first;
    if (!splice.native) classify_tailcall_dispatchers(splice, frames);
    vote_splice(splices_, splice.node, frames, splice.count);
  }
  total_.add(tick_);
  if (unexplained_pending_) {
    unexplained_pending_ = false;
    first_unexplained_ = describe_unexplained();
    log::always(first_unexplained_);
  }
}

std::string Reconciliation::describe_unexplained() {
  auto name = [&](const SampleFrame& f) {
    if (!f.native) return names_.lookup(f.id).name;
    char address[40];
    std::snprintf(address, sizeof address, "[native 0x%" PRIxPTR "]", uintptr_t(f.id));
    return std::string(address);
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
  return text;
}

std::vector<std::string> verify_summary(const ReconcileCounts& totals, const std::string& first_unexplained) {
  std::string line = "VERIFY: " + std::to_string(totals.snapshots) + " snapshots compared with the shadow stacks, " +
                     std::to_string(totals.frames_compared) + " frames matched, " +
                     std::to_string(totals.unexplained) + " UNEXPLAINED differences";
  if (totals.unexplained == 0) return {line + " - the shadow stacks agree with the runtime"};
  return {line + ":", first_unexplained};
}

}  // namespace umbra
