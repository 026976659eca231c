// Focused shadow mode keeps the runtime's precompiled (ReadyToRun) code. The runtime refuses a module's
// precompiled code when enter/leave hooks are on at the moment the module loads (any COR_PRF_REQUIRE_PROFILE_IMAGE
// bit), so hooks are turned off from ModuleLoadStarted to ModuleLoadFinished: a window.
//
// A method whose compilation reads the flags inside a window gets no hooks, so windows and the compilations of
// hooked methods exclude each other, without either waiting on a lock:
// - a hooked method's compilation announces itself (JITCompilationStarted, before the runtime reads the flags),
//   then waits, at most kLongestWait, for an open window to close;
// - a load opens no window while another thread's hooked compilation is announced (the load's module is then
//   JIT-compiled; counted). The loading thread's own compilation has read its flags already: a module loads while
//   the JIT resolves a method's tokens.
// With sequentially consistent order, either the compilation sees the window or the load sees the compilation.
// HookSelection still counts any hooked method compiled without hooks.
//
// Contract: the module-load and JIT callbacks, on any thread. Loads take one mutex around their count and
// SetEventMask (the only call into the runtime), so that windows open and close in order; compilations take none.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>

#include "clr/corprof.h"

namespace umbra {

class ReadyToRunWindows {
 public:
  static constexpr std::chrono::milliseconds kLongestWait{200};

  // `shadow_mask`: the event mask with hooks on (COR_PRF_MONITOR_MODULE_LOADS included).
  ReadyToRunWindows(clr::ICorProfilerInfo* info, clr::DWORD shadow_mask) : info_(info), shadow_mask_(shadow_mask) {}

  void module_load_started();
  void module_load_finished();
  void hooked_compilation_started();
  void hooked_compilation_finished();

  uint64_t windows() const { return windows_.load(std::memory_order_relaxed); }
  // Loads that kept hooks on (another thread was compiling a hooked method): their modules are JIT-compiled.
  uint64_t loads_with_hooks() const { return loads_with_hooks_.load(std::memory_order_relaxed); }
  // Compilations that gave up waiting for a window to close.
  uint64_t waits_abandoned() const { return waits_abandoned_.load(std::memory_order_relaxed); }

 private:
  void set_hooks(bool on);

  clr::ICorProfilerInfo* info_;
  const clr::DWORD shadow_mask_;
  std::mutex loads_mutex_;
  int32_t loading_ = 0;                      // loads in progress (all threads), under loads_mutex_
  std::atomic<bool> window_open_{false};     // hooks are off, or about to be; written under loads_mutex_
  std::atomic<int32_t> hooked_compiling_{0};  // hooked methods being compiled (all threads)
  std::atomic<uint64_t> windows_{0}, loads_with_hooks_{0}, waits_abandoned_{0};
};

}  // namespace umbra
