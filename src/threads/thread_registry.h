// What umbra knows about managed threads: one ThreadRecord per thread met, live or ended, in one table.
//
// Contract: called from the thread callbacks (ThreadCreated/Destroyed/AssignedToOSThread/NameChanged), which may
// block, and by the sampler before and after (never during) a suspension; never from the hooks. One mutex guards
// the table; it is never held while calling into the runtime or while ThreadDestroyed waits for a walk.
// ThreadDestroyed marks the thread ended and retires its shadow: its tree is kept for the report, and, when the
// callback runs on the dying thread itself, its frame pages are released and the thread-local pointer cleared.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "clr/corprof.h"
#include "hooks/shadow_pool.h"
#include "threads/thread_record.h"

namespace umbra {

class ThreadRegistry {
 public:
  explicit ThreadRegistry(ShadowPool& pool) : pool_(pool) {}

  void on_created(clr::ThreadID thread);
  void on_destroyed(clr::ThreadID thread);
  void on_assigned_os_thread(clr::ThreadID thread, uint32_t os_tid);
  void on_name_changed(clr::ThreadID thread, std::u16string_view name);

  // --- the sampler's side ---
  // Live threads the sampler may walk, sorted by ThreadID (prepared before each suspension).
  void sampling_targets(std::vector<std::shared_ptr<SampledThread>>& out) const;
  // A thread met without a ThreadCreated (the main thread; every thread already running when umbra attached):
  // sample it from now on.
  void on_seen_by_sampler(clr::ThreadID thread);
  // Once the sampler has stopped: no thread is running its native-top handler, and none that still exists has a
  // capture signal on its way (sent and not yet taken), so that the handler can be uninstalled.
  bool native_captures_settled() const;

  // --- the report's side ---
  // A record as the report sees it: name and end read under the mutex.
  struct Snapshot {
    std::shared_ptr<const ThreadRecord> record;
    std::optional<std::string> name;
    bool ended;
  };
  // Every thread met, live or ended, in the order met; shadows claimed since the last call are attached to their
  // thread's record first (a thread that ran hooks without any callback gets a record of its own).
  std::vector<Snapshot> snapshot();
  // Captures that never finished because their thread ended first (their buffers are kept, never reused).
  uint64_t abandoned_captures() const;
  uint64_t threads_created() const;
  uint64_t threads_destroyed() const;
  // Held while the process is copied for its report writer (profiler/report_writer_process.h).
  std::mutex& mutex_for_copy() const { return mutex_; }

  // Shadows prepared at start for threads that run managed code without a ThreadCreated of their own (the main
  // thread); every ThreadCreated then prepares one more.
  static constexpr size_t kPreparedShadows = 8;

 private:
  ThreadRecord& live_record_locked(clr::ThreadID thread);
  void attach_claimed_shadows_locked();

  ShadowPool& pool_;
  mutable std::mutex mutex_;
  std::vector<std::shared_ptr<ThreadRecord>> records_;       // the table: every thread met, in the order met
  std::unordered_map<clr::ThreadID, std::shared_ptr<ThreadRecord>> live_;  // live records (ThreadIDs are reused)
  ThreadShadow* attached_head_ = nullptr;                     // claimed shadows up to here are attached
  uint64_t abandoned_captures_ = 0;
  uint64_t created_ = 0;
  uint64_t destroyed_ = 0;
};

}  // namespace umbra
