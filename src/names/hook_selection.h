// Focused shadow mode: decides, once per method, whether the JIT gives it enter/leave hooks (FunctionIDMapper2) and
// keeps every hooked method from being inlined (JITInlining), so that its calls are all counted while the rest of
// the program is compiled as usual.
//
// Contract: called by the runtime while it compiles methods, on any thread; never from the hooks. One mutex guards
// the caches; it is held while asking the runtime for a method's module and name (FunctionNames), never while
// waiting on anything else.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>

#include "clr/corprof.h"
#include "names/function_names.h"
#include "names/method_patterns.h"

namespace umbra {

class HookSelection {
 public:
  struct Counts {
    uint64_t hooked = 0, not_hooked = 0;  // methods the runtime asked about
    uint64_t inlining_refused = 0;        // calls kept so that a hooked callee is counted
    uint64_t precompiled_refused = 0;     // hooked methods JIT-compiled instead of run from precompiled code
    // Hooked methods compiled without hooks (begun while hooks were off for a module's load): some of their calls
    // are not counted.
    uint64_t compiled_without_hooks = 0;
  };

  // `first_hooked` runs once, on the thread that finds the first method to hook, outside the mutex.
  HookSelection(clr::ICorProfilerInfo* info, FunctionNames& names, MethodPatterns patterns,
                std::function<void()> first_hooked = {});

  bool hooks(clr::FunctionID function);
  // JITInlining's answer: a hooked callee is never inlined; anything else inlines as the JIT sees fit.
  bool may_inline(clr::FunctionID callee);
  // JITCachedFunctionSearchStarted's answer: precompiled code has no hooks, so a hooked method is JIT-compiled.
  bool may_use_precompiled(clr::FunctionID function);
  // Around each JIT compilation (JITCompilationStarted, JITCompilationFinished on the same thread): a hooked method
  // whose compilation never asked the mapper was compiled without hooks. Both return whether the method is hooked.
  bool compilation_started(clr::FunctionID function);
  bool compilation_finished(clr::FunctionID function);
  Counts counts() const;
  // Held by a session while it copies the process for its report (profiler/report_writer_process.h).
  std::mutex& mutex_for_copy() const { return mutex_; }

  // The FunctionIDMapper2 to install with `this` as its client data. The hooks receive the FunctionID.
  static clr::UINT_PTR map_function(clr::FunctionID function, void* self, clr::BOOL* hook_function);

 private:
  struct Assembly {
    std::string name;  // simple name: the module's file name without .dll or .exe
    bool framework = false;
    bool names_matter = true;  // a method pattern applies to it: its methods are named to be judged
  };
  const Assembly& assembly_locked(clr::ModuleID module);

  clr::ICorProfilerInfo* info_;
  FunctionNames& names_;
  const MethodPatterns patterns_;
  std::function<void()> first_hooked_;
  mutable std::mutex mutex_;
  std::unordered_map<clr::FunctionID, bool> decided_;
  std::unordered_map<clr::ModuleID, Assembly> assemblies_;
  Counts counts_;
};

// The assembly a module file holds, and whether the file lies in a shared framework (<root>/shared/<name>/<version>/).
std::string assembly_name_of(const std::string& module_path);
bool in_shared_framework(const std::string& module_path);

}  // namespace umbra
