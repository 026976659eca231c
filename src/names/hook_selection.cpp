#include "names/hook_selection.h"

#include "util/utf8.h"

namespace umbra {
namespace {

// The method the mapper was last asked about on this thread: the runtime asks once per compilation with hooks.
thread_local clr::FunctionID t_mapped_function = 0;

}  // namespace

std::string assembly_name_of(const std::string& module_path) {
  std::string name = module_path.substr(module_path.find_last_of('/') + 1);
  for (const char* extension : {".dll", ".exe", ".DLL", ".EXE"}) {
    std::string_view ext(extension);
    if (name.size() > ext.size() && name.compare(name.size() - ext.size(), ext.size(), ext) == 0)
      return name.substr(0, name.size() - ext.size());
  }
  return name;
}

bool in_shared_framework(const std::string& module_path) {
  // .../shared/Microsoft.NETCore.App/10.0.12/System.Runtime.dll: the directory two levels above the file's is shared.
  size_t end = module_path.find_last_of('/');
  for (int up = 0; up < 2 && end != std::string::npos && end > 0; ++up) end = module_path.find_last_of('/', end - 1);
  if (end == std::string::npos || end == 0) return false;
  size_t begin = module_path.find_last_of('/', end - 1);
  begin = begin == std::string::npos ? 0 : begin + 1;
  return module_path.compare(begin, end - begin, "shared") == 0;
}

HookSelection::HookSelection(clr::ICorProfilerInfo* info, FunctionNames& names, MethodPatterns patterns,
                             std::function<void()> first_hooked)
    : info_(info), names_(names), patterns_(std::move(patterns)), first_hooked_(std::move(first_hooked)) {}

const HookSelection::Assembly& HookSelection::assembly_locked(clr::ModuleID module) {
  if (auto it = assemblies_.find(module); it != assemblies_.end()) return it->second;
  constexpr clr::ULONG kCapacity = 1024;
  clr::WCHAR buf[kCapacity];
  clr::ULONG len = 0;
  clr::LPCBYTE base = nullptr;
  clr::AssemblyID assembly_id = 0;
  Assembly assembly;
  if (clr::succeeded(info_->GetModuleInfo(module, &base, kCapacity, &len, buf, &assembly_id)) && len > 0) {
    std::u16string_view text(buf, std::min(len, kCapacity) - 1);
    if (auto nul = text.find(u'\0'); nul != std::u16string_view::npos) text = text.substr(0, nul);
    std::string path = utf16_to_utf8(text);
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

void HookSelection::compilation_started(clr::FunctionID) { t_mapped_function = 0; }

void HookSelection::compilation_finished(clr::FunctionID function) {
  if (t_mapped_function == function || !hooks(function)) return;
  std::lock_guard<std::mutex> lock(mutex_);
  ++counts_.compiled_without_hooks;
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
