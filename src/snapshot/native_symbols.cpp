#include "snapshot/native_symbols.h"

#include <cxxabi.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

namespace umbra {
namespace {

std::string base_name(const char* path) {
  std::string p = path ? path : "";
  auto slash = p.find_last_of('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

NativeSymbol resolve(uintptr_t ip) {
  NativeSymbol out;
  Dl_info info{};
  // A return address points after the call; look up the call itself so a call ending a function resolves right.
  uintptr_t probe = ip > 0 ? ip - 1 : ip;
  if (dladdr(reinterpret_cast<void*>(probe), &info) == 0 || info.dli_fname == nullptr) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "[unknown 0x%lx]", static_cast<unsigned long>(ip));
    out.name = buf;
    return out;
  }
  out.module = base_name(info.dli_fname);
  if (info.dli_sname != nullptr) {
    int status = 0;
    char* demangled = abi::__cxa_demangle(info.dli_sname, nullptr, nullptr, &status);
    out.name = status == 0 && demangled ? demangled : info.dli_sname;
    std::free(demangled);
  } else {
    char buf[64];
    std::snprintf(buf, sizeof buf, "+0x%lx",
                  static_cast<unsigned long>(probe - reinterpret_cast<uintptr_t>(info.dli_fbase)));
    out.name = out.module + buf;
  }
  return out;
}

}  // namespace

NativeSymbol NativeSymbols::lookup(uintptr_t ip) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = cache_.find(ip);
  if (it == cache_.end()) it = cache_.emplace(ip, resolve(ip)).first;
  return it->second;
}

}  // namespace umbra
