#include "threads/thread_registry.h"

#include "hooks/elt2_hooks.h"

namespace umbra {

void ThreadRegistry::on_created(clr::ThreadID thread) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    threads_[thread];
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

void ThreadRegistry::on_destroyed(clr::ThreadID thread) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++destroyed_;
  // ThreadIDs are reused by later threads: what belongs to this one moves out of the by-id tables.
  std::optional<std::string> name;
  if (auto it = threads_.find(thread); it != threads_.end()) {
    name = std::move(it->second.name);
    threads_.erase(it);
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
