#include "names/hook_selection.h"

#include "util/paths.h"

namespace umbra {
namespace {

// The method the mapper was last asked about on this thread: the runtime asks once per compilation with hooks.
thread_local clr::FunctionID t_mapped_function = 0;

}  // namespace

std::string assembly_name_of(const std::string& module_path) {
  std::string_view name = file_name_of(module_path);
  for (std::string_view extension : {".dll", ".exe", ".DLL", ".EXE"})
    if (name.size() > extension.size() && name.ends_with(extension))
      return std::string(name.substr(0, name.size() - extension.size()));
  return std::string(name);
}

bool in_shared_framework(const std::string& module_path) {
  // .../shared/Microsoft.NETCore.App/10.0.12/System.Runtime.dll: the directory two levels above the file's is shared.
  return file_name_of(directory_of(directory_of(directory_of(module_path)))) == "shared";
}

HookSelection::HookSelection(clr::ICorProfilerInfo* info, FunctionNames& names, MethodPatterns patterns,
                             std::function<void()> first_hooked)
    : info_(info), names_(names), patterns_(std::move(patterns)), first_hooked_(std::move(first_hooked)) {}

const HookSelection::Assembly& HookSelection::assembly_locked(clr::ModuleID module) {
  if (auto it = assemblies_.find(module); it != assemblies_.end()) return it->second;
  Assembly assembly;
  if (std::string path = module_path(*info_, module); !path.empty()) {
    assembly.name = assembly_name_of(path);
    assembly.framework = in_shared_framework(path) || is_framework_assembly_name(assembly.name);
    assembly.names_matter = patterns_.names_matter(assembly.name);
  }
  return assemblies_.emplace(module, std::move(assembly)).first->second;
}

bool HookSelection::hooks(clr::FunctionID function) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (auto it = decided_.find(function); it != decided_.end()) return it->second;
  clr::ClassID cls = 0;
  clr::ModuleID module = 0;
  clr::mdToken token = 0;
  bool hooked = true;  // a method the runtime cannot describe is hooked, as without patterns
  if (clr::succeeded(info_->GetFunctionInfo(function, &cls, &module, &token))) {
    const Assembly& assembly = assembly_locked(module);
    // Naming is the costly part, and the runtime asks about every method it compiles, inlines or finds precompiled.
    std::string method = assembly.names_matter ? names_.lookup(function).name : std::string();
    hooked = patterns_.hooks(assembly.name, method, assembly.framework);
  }
  ++(hooked ? counts_.hooked : counts_.not_hooked);
  decided_.emplace(function, hooked);
  if (hooked && counts_.hooked == 1 && first_hooked_) {
    lock.unlock();
    first_hooked_();
  }
  return hooked;
}

bool HookSelection::may_inline(clr::FunctionID callee) {
  if (!hooks(callee)) return true;
  std::lock_guard<std::mutex> lock(mutex_);
  ++counts_.inlining_refused;
  return false;
}

bool HookSelection::may_use_precompiled(clr::FunctionID function) {
  if (!hooks(function)) return true;
  std::lock_guard<std::mutex> lock(mutex_);
  ++counts_.precompiled_refused;
  return false;
}

bool HookSelection::compilation_started(clr::FunctionID function) {
  t_mapped_function = 0;
  return hooks(function);
}

bool HookSelection::compilation_finished(clr::FunctionID function) {
  if (!hooks(function)) return false;
  if (t_mapped_function != function) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++counts_.compiled_without_hooks;
  }
  return true;
}

HookSelection::Counts HookSelection::counts() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return counts_;
}

clr::UINT_PTR HookSelection::map_function(clr::FunctionID function, void* self, clr::BOOL* hook_function) {
  t_mapped_function = function;
  bool hooked = true;
  try {
    hooked = static_cast<HookSelection*>(self)->hooks(function);
  } catch (...) {
  }
  if (hook_function) *hook_function = hooked ? clr::TRUE_ : clr::FALSE_;
  return function;
}

}  // namespace umbra
