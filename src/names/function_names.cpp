#include "names/function_names.h"

#include <algorithm>
#include <cstdio>

#include "clr/guids.h"
#include "util/paths.h"
#include "util/utf8.h"

namespace umbra {
namespace {

constexpr clr::ULONG kNameCapacity = 1024;

std::string hex_name(const char* what, uintptr_t value) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "[%s 0x%lx]", what, static_cast<unsigned long>(value));
  return buf;
}

std::string to_utf8(const clr::WCHAR* text, clr::ULONG count_with_nul) {
  size_t n = count_with_nul > 0 ? count_with_nul - 1 : 0;
  if (n > kNameCapacity - 1) n = kNameCapacity - 1;
  std::u16string_view view(text, n);
  if (auto nul = view.find(u'\0'); nul != std::u16string_view::npos) view = view.substr(0, nul);
  return utf16_to_utf8(view);
}

}  // namespace

std::string type_name(clr::IMetaDataImport& metadata, clr::mdTypeDef type) {
  std::string result;
  for (int nesting = 0; nesting < 64 && (type & clr::kTokenTypeMask) == clr::mdtTypeDef; ++nesting) {
    clr::WCHAR buf[kNameCapacity];
    clr::ULONG len = 0;
    clr::DWORD flags = 0;
    clr::mdToken extends = 0;
    if (!clr::succeeded(metadata.GetTypeDefProps(type, buf, kNameCapacity, &len, &flags, &extends))) break;
    std::string part = to_utf8(buf, len);
    result = result.empty() ? part : part + "+" + result;
    if ((flags & clr::tdVisibilityMask) < clr::tdNestedPublic) break;
    clr::mdTypeDef enclosing = 0;
    if (!clr::succeeded(metadata.GetNestedClassProps(type, &enclosing))) break;
    type = enclosing;
  }
  return result;
}

void FunctionNames::remember(clr::FunctionID function) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++jit_compilations_;
  }
  ensure(function);
}

FunctionName FunctionNames::lookup(clr::FunctionID function) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = functions_.find(function); it != functions_.end()) return it->second;
  if (frozen_) return {hex_name("function", function), ""};
  return functions_.emplace(function, resolve_locked(function)).first->second;
}

namespace {

// .NET 9+ dispatches exceptions in managed code; these frames carry hooks but never appear in a snapshot.
bool is_exception_dispatch(const std::string& name) {
  for (const char* prefix : {"System.Runtime.EH.", "System.Runtime.EH+", "System.Runtime.ExceptionServices.InternalCalls.",
                             "System.Runtime.StackFrameIterator."})
    if (name.rfind(prefix, 0) == 0) return true;
  return false;
}

}  // namespace

bool FunctionNames::is_tailcall_dispatcher(clr::FunctionID function) {
  // The runtime's helper-based tail calls run through this method; the hooks see the tail calls, not it.
  return lookup(function).name == "System.Runtime.CompilerServices.RuntimeHelpers.DispatchTailCalls";
}

void FunctionNames::ensure(clr::FunctionID function) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (frozen_ || functions_.find(function) != functions_.end()) return;
  auto& name = functions_.emplace(function, resolve_locked(function)).first->second;
  if (is_exception_dispatch(name.name)) {
    invisible_.push_back(function);
    ++invisible_generation_;
  }
}

void FunctionNames::mark_invisible(clr::FunctionID function) {
  std::lock_guard<std::mutex> lock(mutex_);
  invisible_.push_back(function);
  ++invisible_generation_;
}

bool FunctionNames::copy_invisible(uint64_t& generation, std::vector<clr::FunctionID>& out) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (generation == invisible_generation_) return false;
  generation = invisible_generation_;
  out = invisible_;
  std::sort(out.begin(), out.end());
  return true;
}

void FunctionNames::freeze() {
  std::lock_guard<std::mutex> lock(mutex_);
  frozen_ = true;
}

uint64_t FunctionNames::jit_compilations() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return jit_compilations_;
}

uint64_t FunctionNames::named_by_runtime() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return named_by_runtime_;
}

size_t FunctionNames::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return functions_.size();
}

std::string module_path(clr::ICorProfilerInfo& info, clr::ModuleID module) {
  clr::WCHAR buf[kNameCapacity];
  clr::ULONG len = 0;
  clr::LPCBYTE base = nullptr;
  clr::AssemblyID assembly = 0;
  if (!clr::succeeded(info.GetModuleInfo(module, &base, kNameCapacity, &len, buf, &assembly))) return "";
  return to_utf8(buf, len);
}

const FunctionNames::Module& FunctionNames::module_locked(clr::ModuleID module) {
  if (auto it = modules_.find(module); it != modules_.end()) return it->second;
  std::string path = module_path(*info_, module);
  Module entry{std::string(file_name_of(path)), AssemblyMetadata::open(path)};
  return modules_.emplace(module, std::move(entry)).first->second;
}

FunctionName FunctionNames::resolve_locked(clr::FunctionID function) {
  FunctionName out{hex_name("function", function), ""};
  clr::ClassID cls = 0;
  clr::ModuleID module = 0;
  clr::mdToken token = 0;
  if (!clr::succeeded(info_->GetFunctionInfo(function, &cls, &module, &token))) return out;
  const Module& loaded_from = module_locked(module);
  out.module = loaded_from.name;
  if (loaded_from.tables)
    if (std::optional<std::string> name = loaded_from.tables->method_name(token)) {
      out.name = std::move(*name);
      return out;
    }
  ++named_by_runtime_;
  clr::IUnknown* unknown = nullptr;
  if (!clr::succeeded(info_->GetTokenAndMetaDataFromFunction(function, clr::IID_IMetaDataImport, &unknown, &token)) ||
      unknown == nullptr)
    return out;
  auto* metadata = static_cast<clr::IMetaDataImport*>(unknown);
  clr::WCHAR buf[kNameCapacity];
  clr::ULONG len = 0;
  clr::mdTypeDef owner = 0;
  clr::DWORD attributes = 0, impl_flags = 0;
  clr::PCCOR_SIGNATURE signature = nullptr;
  clr::ULONG signature_size = 0, rva = 0;
  if (clr::succeeded(metadata->GetMethodProps(token, &owner, buf, kNameCapacity, &len, &attributes, &signature,
                                              &signature_size, &rva, &impl_flags))) {
    std::string method = to_utf8(buf, len);
    std::string type = type_name(*metadata, owner);
    out.name = type.empty() || type == "<Module>" ? method : type + "." + method;
  }
  metadata->Release();
  return out;
}

}  // namespace umbra
