#include "threads/thread_registry.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "hooks/shadow_hooks.h"
#include "util/utf8.h"

namespace umbra {

namespace {

// ThreadDestroyed's wait: no walk of the thread may be in flight when it returns, and its native-top buffer may
// not be answered later. Returns false if a capture was left in flight (the buffer must then be kept forever).
bool wait_until_unwalked(SampledThread& t) {
  t.dying.store(true, std::memory_order_seq_cst);
  while (t.walking.load(std::memory_order_seq_cst)) std::this_thread::yield();
  if (cancel_native_capture(t.capture)) return true;
  // The handler is running, or the request was sent to a thread that has already left: wait briefly.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
  while (t.capture.state.load(std::memory_order_acquire) == NativeCapture::kCapturing ||
         t.capture.state.load(std::memory_order_acquire) == NativeCapture::kRequested) {
    if (cancel_native_capture(t.capture)) return true;
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  return true;
}

}  // namespace

ThreadRecord& ThreadRegistry::live_record_locked(clr::ThreadID thread) {
  auto [it, inserted] = live_.try_emplace(thread, nullptr);
  if (inserted) {
    it->second = std::make_shared<ThreadRecord>(thread);
    records_.push_back(it->second);
  }
  return *it->second;
}

void ThreadRegistry::attach_claimed_shadows_locked() {
  // Newly claimed shadows sit at the head of the pool's list, before the last one attached.
  ThreadShadow* head = pool_.claimed_head();
  for (ThreadShadow* s = head; s && s != attached_head_; s = s->next_claimed.load(std::memory_order_acquire)) {
    ThreadRecord* record = nullptr;
    if (s->thread_id != 0) {
      record = &live_record_locked(s->thread_id);
      if (record->shadow != nullptr && record->shadow != s) record = nullptr;  // the ThreadID was reused
    }
    if (record == nullptr) {
      records_.push_back(std::make_shared<ThreadRecord>(s->thread_id));
      record = records_.back().get();
    }
    record->shadow = s;
  }
  attached_head_ = head;
}

void ThreadRegistry::on_created(clr::ThreadID thread) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    live_record_locked(thread);
    ++created_;
  }
  pool_.prepare(1);
}

void ThreadRegistry::on_destroyed(clr::ThreadID thread) {
  std::shared_ptr<ThreadRecord> record;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    attach_claimed_shadows_locked();
    if (auto it = live_.find(thread); it != live_.end()) record = it->second;
  }
  bool settled = record ? wait_until_unwalked(record->sampled) : true;
  std::lock_guard<std::mutex> lock(mutex_);
  ++destroyed_;
  if (!settled) ++abandoned_captures_;  // the record keeps the buffer alive to the end
  if (!record) return;
  // ThreadIDs are reused by later threads: the ended record leaves the index and stays in the table.
  live_.erase(thread);
  record->ended = true;
  ThreadShadow* shadow = record->shadow;
  if (shadow == nullptr) return;
  shadow->retired.store(true, std::memory_order_release);
  if (hooks::existing_shadow() == shadow) {
    hooks::release_current_shadow();
    shadow->discard_frames();
  }
}

void ThreadRegistry::on_assigned_os_thread(clr::ThreadID thread, uint32_t os_tid) {
  std::lock_guard<std::mutex> lock(mutex_);
  live_record_locked(thread).sampled.os_tid.store(pid_t(os_tid), std::memory_order_relaxed);
}

void ThreadRegistry::on_name_changed(clr::ThreadID thread, std::u16string_view name) {
  std::string utf8 = utf16_to_utf8(name);
  std::lock_guard<std::mutex> lock(mutex_);
  live_record_locked(thread).name = std::move(utf8);
}

void ThreadRegistry::on_seen_by_sampler(clr::ThreadID thread) {
  std::lock_guard<std::mutex> lock(mutex_);
  live_record_locked(thread);
}

bool ThreadRegistry::native_captures_settled() const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& r : records_) {
    const NativeCapture& capture = r->sampled.capture;
    if (capture.state.load(std::memory_order_acquire) == NativeCapture::kCapturing) return false;
    if (!capture.signal_queued.load(std::memory_order_acquire)) continue;
    // A thread that has gone took its pending signals with it.
    pid_t tid = r->sampled.os_tid.load(std::memory_order_relaxed);
    if (!r->ended || (tid != 0 && access(("/proc/self/task/" + std::to_string(tid)).c_str(), F_OK) == 0)) return false;
  }
  return true;
}

void ThreadRegistry::sampling_targets(std::vector<std::shared_ptr<SampledThread>>& out) const {
  out.clear();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& r : records_)
      if (!r->ended && r->id != 0) out.emplace_back(r, &r->sampled);  // shares the record's ownership
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a->thread_id < b->thread_id; });
}

std::vector<ThreadRegistry::Snapshot> ThreadRegistry::snapshot() {
  std::lock_guard<std::mutex> lock(mutex_);
  attach_claimed_shadows_locked();
  std::vector<Snapshot> out;
  out.reserve(records_.size());
  for (const auto& r : records_) out.push_back({r, r->name, r->ended});
  return out;
}

uint64_t ThreadRegistry::abandoned_captures() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return abandoned_captures_;
}

uint64_t ThreadRegistry::threads_created() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return created_;
}

uint64_t ThreadRegistry::threads_destroyed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return destroyed_;
}

}  // namespace umbra
