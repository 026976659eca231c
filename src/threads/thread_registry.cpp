#include "threads/thread_registry.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "hooks/shadow_hooks.h"

namespace umbra {

void ThreadRegistry::on_created(clr::ThreadID thread) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    threads_[thread];
    sampled_.try_emplace(thread, std::make_shared<SampledThread>(thread));
    ++created_;
  }
  pool_.prepare(1);
}

ThreadShadow* ThreadRegistry::find_shadow_locked(clr::ThreadID thread) {
  // Newly claimed shadows sit at the head of the pool's list, before the last one indexed.
  ThreadShadow* head = pool_.claimed_head();
  for (ThreadShadow* s = head; s && s != indexed_head_; s = s->next_claimed.load(std::memory_order_acquire))
    if (s->thread_id != 0) shadows_.emplace(s->thread_id, s);
  indexed_head_ = head;
  auto it = shadows_.find(thread);
  return it == shadows_.end() ? nullptr : it->second;
}

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

void ThreadRegistry::on_destroyed(clr::ThreadID thread) {
  std::shared_ptr<SampledThread> sampled;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = sampled_.find(thread); it != sampled_.end()) sampled = it->second;
  }
  bool settled = sampled ? wait_until_unwalked(*sampled) : true;
  std::lock_guard<std::mutex> lock(mutex_);
  ++destroyed_;
  if (!settled) ++abandoned_captures_;  // the entry below keeps the buffer alive to the end
  // ThreadIDs are reused by later threads: what belongs to this one moves out of the by-id tables.
  std::optional<std::string> name;
  if (auto it = threads_.find(thread); it != threads_.end()) {
    name = std::move(it->second.name);
    threads_.erase(it);
  }
  if (sampled) {
    sampled_.erase(thread);
    sampled_ended_.push_back({sampled, name, true});
  }
  ThreadShadow* shadow = find_shadow_locked(thread);
  if (shadow == nullptr) return;
  shadows_.erase(thread);
  retired_names_[shadow] = std::move(name);
  shadow->retired.store(true, std::memory_order_release);
  if (hooks::existing_shadow() == shadow) {
    hooks::release_current_shadow();
    shadow->discard_frames();
  }
}

void ThreadRegistry::on_assigned_os_thread(clr::ThreadID thread, uint32_t os_tid) {
  std::lock_guard<std::mutex> lock(mutex_);
  threads_[thread].os_tid = os_tid;
  auto& sampled = sampled_[thread];
  if (!sampled) sampled = std::make_shared<SampledThread>(thread);
  sampled->os_tid.store(pid_t(os_tid), std::memory_order_relaxed);
}

void ThreadRegistry::sampling_targets(std::vector<std::shared_ptr<SampledThread>>& out) const {
  out.clear();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [id, t] : sampled_) out.push_back(t);
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a->thread_id < b->thread_id; });
}

void ThreadRegistry::on_seen_by_sampler(clr::ThreadID thread) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto& sampled = sampled_[thread];
  if (!sampled) sampled = std::make_shared<SampledThread>(thread);
}

std::vector<ThreadRegistry::SampledEntry> ThreadRegistry::sampled_threads() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<SampledEntry> out = sampled_ended_;
  for (const auto& [id, t] : sampled_) {
    auto info = threads_.find(id);
    out.push_back({t, info == threads_.end() ? std::nullopt : info->second.name, false});
  }
  return out;
}

uint64_t ThreadRegistry::abandoned_captures() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return abandoned_captures_;
}

void ThreadRegistry::on_name_changed(clr::ThreadID thread, std::u16string_view name) {
  std::string utf8 = utf16_to_utf8(name);
  std::lock_guard<std::mutex> lock(mutex_);
  threads_[thread].name = std::move(utf8);
}

std::optional<std::string> ThreadRegistry::name_of(const ThreadShadow& shadow) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = retired_names_.find(&shadow); it != retired_names_.end()) return it->second;
  if (auto it = threads_.find(shadow.thread_id); it != threads_.end()) return it->second.name;
  return std::nullopt;
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
