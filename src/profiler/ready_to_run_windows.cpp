#include "profiler/ready_to_run_windows.h"

#include <thread>

namespace umbra {
namespace {

thread_local int32_t t_hooked_compiling = 0;  // this thread's share of hooked_compiling_

}  // namespace

void ReadyToRunWindows::module_load_started() {
  std::lock_guard<std::mutex> lock(loads_mutex_);
  if (loading_++ != 0) return;  // a window is open, or hooks stay on for the load in progress
  window_open_.store(true);
  if (hooked_compiling_.load() > t_hooked_compiling) {
    window_open_.store(false);
    loads_with_hooks_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  windows_.fetch_add(1, std::memory_order_relaxed);
  set_hooks(false);
}

// A load that started before this object existed has no start here: the count never goes below zero.
void ReadyToRunWindows::module_load_finished() {
  std::lock_guard<std::mutex> lock(loads_mutex_);
  if (loading_ == 0 || --loading_ != 0 || !window_open_.load()) return;
  set_hooks(true);
  window_open_.store(false);
}

void ReadyToRunWindows::hooked_compilation_started() {
  hooked_compiling_.fetch_add(1);
  ++t_hooked_compiling;
  if (!window_open_.load()) return;
  auto deadline = std::chrono::steady_clock::now() + kLongestWait;
  while (window_open_.load()) {
    if (std::chrono::steady_clock::now() > deadline) {
      waits_abandoned_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    std::this_thread::yield();
  }
}

void ReadyToRunWindows::hooked_compilation_finished() {
  if (t_hooked_compiling == 0) return;  // started before this object existed
  --t_hooked_compiling;
  hooked_compiling_.fetch_sub(1);
}

void ReadyToRunWindows::set_hooks(bool on) {
  clr::DWORD mask = on ? shadow_mask_ : shadow_mask_ & ~clr::DWORD(clr::COR_PRF_MONITOR_ENTERLEAVE);
  info_->SetEventMask(mask);
}

}  // namespace umbra
