// What umbra knows about managed threads: OS thread id, name, and whether the thread is gone.
//
// Contract: called from the thread callbacks (ThreadCreated/Destroyed/AssignedToOSThread/NameChanged), which may
// block, and by the sampler before and after (never during) a suspension; never from the hooks. One mutex guards
// the tables; it is never held while calling into the runtime or while ThreadDestroyed waits for a walk.
// ThreadDestroyed retires the thread's shadow: its tree is kept for the report (the handover), and, when the
// callback runs on the dying thread itself, its frame pages are released and the thread-local pointer cleared.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "clr/corprof.h"
#include "hooks/shadow_pool.h"
#include "threads/sampled_thread.h"
#include "util/utf8.h"

namespace umbra {

struct ManagedThreadInfo {
  uint32_t os_tid = 0;
  std::optional<std::string> name;
};

class ThreadRegistry {
 public:
  explicit ThreadRegistry(ShadowPool& pool) : pool_(pool) {}

  void on_created(clr::ThreadID thread);
  void on_destroyed(clr::ThreadID thread);
  void on_assigned_os_thread(clr::ThreadID thread, uint32_t os_tid);
  void on_name_changed(clr::ThreadID thread, std::u16string_view name);

  // The name of the thread that owns (or owned) this shadow.
  std::optional<std::string> name_of(const ThreadShadow& shadow) const;

  // --- the sampler's side ---
  // Live threads the sampler may walk, sorted by ThreadID (prepared before each suspension).
  void sampling_targets(std::vector<std::shared_ptr<SampledThread>>& out) const;
  // A thread the sampler met without a ThreadCreated (the main thread): sample it from now on.
  void on_seen_by_sampler(clr::ThreadID thread);
  // Every sampled thread, live or ended, with its name; for the report.
  struct SampledEntry {
    std::shared_ptr<SampledThread> thread;
    std::optional<std::string> name;
    bool exited;
  };
  std::vector<SampledEntry> sampled_threads() const;
  // Captures that never finished because their thread ended first (their buffers are kept, never reused).
  uint64_t abandoned_captures() const;
  uint64_t threads_created() const;
  uint64_t threads_destroyed() const;

  // Shadows prepared at start for threads that run managed code without a ThreadCreated of their own (the main
  // thread); every ThreadCreated then prepares one more.
  static constexpr size_t kPreparedShadows = 8;

 private:
  ThreadShadow* find_shadow_locked(clr::ThreadID thread);

  ShadowPool& pool_;
  mutable std::mutex mutex_;
  std::unordered_map<clr::ThreadID, ManagedThreadInfo> threads_;
  std::unordered_map<clr::ThreadID, ThreadShadow*> shadows_;  // index over the pool's claimed list
  std::unordered_map<const ThreadShadow*, std::optional<std::string>> retired_names_;
  std::unordered_map<clr::ThreadID, std::shared_ptr<SampledThread>> sampled_;  // live
  std::vector<SampledEntry> sampled_ended_;
  uint64_t abandoned_captures_ = 0;
  ThreadShadow* indexed_head_ = nullptr;                        // claimed shadows up to here are in shadows_
  uint64_t created_ = 0;
  uint64_t destroyed_ = 0;
};

}  // namespace umbra
