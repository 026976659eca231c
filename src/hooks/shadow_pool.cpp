#include "hooks/shadow_pool.h"

#include <sys/syscall.h>
#include <unistd.h>

namespace umbra {

void ShadowPool::prepare(size_t count) {
  std::lock_guard<std::mutex> lock(owned_mutex_);
  for (; count > 0 && prepared_count_.load(std::memory_order_relaxed) < kMaxPrepared; --count) {
    auto shadow = std::make_unique<ThreadShadow>(limits_, &budget_);
    if (!prepared_.bounded_push(shadow.get())) break;
    prepared_count_.fetch_add(1, std::memory_order_relaxed);
    owned_.push_back(std::move(shadow));
  }
}

ThreadShadow* ShadowPool::claim(clr::ThreadID thread_id) {
  ThreadShadow* shadow = nullptr;
  if (!prepared_.pop(shadow)) return nullptr;
  prepared_count_.fetch_sub(1, std::memory_order_relaxed);
  shadow->os_tid = static_cast<pid_t>(syscall(SYS_gettid));
  shadow->thread_id = thread_id;
  ThreadShadow* head = claimed_head_.load(std::memory_order_relaxed);
  do {
    shadow->next_claimed.store(head, std::memory_order_relaxed);
  } while (!claimed_head_.compare_exchange_weak(head, shadow, std::memory_order_release, std::memory_order_relaxed));
  return shadow;
}

}  // namespace umbra
