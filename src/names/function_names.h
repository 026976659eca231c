// FunctionID -> "Namespace.Outer+Inner.Method" and module file name: read from the module's file where it has one
// (names/assembly_metadata.h says why), through the runtime's IMetaDataImport otherwise.
//
// Contract: never called from the hooks. remember() runs in JITCompilationFinished so that every method that can
// appear in a tree has its name before any exit path needs it; lookup() resolves what is still missing. Both lock
// one mutex, which is never held while waiting on anything but the runtime's metadata calls and the first reading of
// a module's file.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "clr/corprof.h"
#include "clr/metadata.h"
#include "names/assembly_metadata.h"

namespace umbra {

struct FunctionName {
  std::string name;
  std::string module;
};

class FunctionNames {
 public:
  explicit FunctionNames(clr::ICorProfilerInfo* info) : info_(info) {}

  // Called once per JIT compilation (tiered rejits included).
  void remember(clr::FunctionID function);
  FunctionName lookup(clr::FunctionID function);
  // Resolves now if not known yet (the sampler, after each tick, so that exit paths find the names).
  void ensure(clr::FunctionID function);
  // Stops calling into the runtime (it is shutting down); lookup() then answers from the cache only.
  void freeze();
  // Held while the process is copied for its report writer (profiler/report_writer_process.h), so that the copy
  // finds it free.
  std::mutex& mutex_for_copy() const { return mutex_; }
  size_t size() const;

  // Functions whose frames the hooks see but stack snapshots never show: dynamic methods and IL stubs
  // (mark_invisible, from DynamicMethodJITCompilationStarted) and, on .NET 9+, the runtime's managed
  // exception-dispatch methods (recognized by name when resolved). The reconciliation must not take their frames
  // for stale ones.
  void mark_invisible(clr::FunctionID function);
  // Copies the invisible set, sorted, if it changed since `generation` (updated); false if unchanged.
  bool copy_invisible(uint64_t& generation, std::vector<clr::FunctionID>& out) const;
  uint64_t jit_compilations() const;
  // Functions named through the runtime's IMetaDataImport: modules without a file that names/assembly_metadata.h reads.
  uint64_t named_by_runtime() const;
  // The runtime's dispatcher of helper-based tail calls: a frame snapshots show between the frames tail calls
  // connect, which the hooks never see (the reconciliation counts it as explained, not as uninstrumented code).
  bool is_tailcall_dispatcher(clr::FunctionID function);

 private:
  FunctionName resolve_locked(clr::FunctionID function);
  struct Module {
    std::string name;                           // the file's name
    std::unique_ptr<AssemblyMetadata> tables;  // null: the runtime names this module's methods
  };
  const Module& module_locked(clr::ModuleID module);

  clr::ICorProfilerInfo* info_;
  mutable std::mutex mutex_;
  bool frozen_ = false;
  uint64_t jit_compilations_ = 0;
  uint64_t named_by_runtime_ = 0;
  std::vector<clr::FunctionID> invisible_;
  uint64_t invisible_generation_ = 0;
  std::unordered_map<clr::FunctionID, FunctionName> functions_;
  std::unordered_map<clr::ModuleID, Module> modules_;
};

// The file a module was loaded from, as the runtime names it (empty if it cannot).
std::string module_path(clr::ICorProfilerInfo& info, clr::ModuleID module);

// Builds "Namespace.Outer+Inner" for a type definition. Exposed for tests with a fake IMetaDataImport.
std::string type_name(clr::IMetaDataImport& metadata, clr::mdTypeDef type);

}  // namespace umbra
