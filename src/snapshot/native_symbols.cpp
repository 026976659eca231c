#include "snapshot/native_symbols.h"
#include "util/paths.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <link.h>
#include <limits.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace umbra {
namespace {

std::string demangled(const char* symbol) {
  int status = 0;
  char* readable = abi::__cxa_demangle(symbol, nullptr, nullptr, &status);
  std::string name = status == 0 && readable ? readable : symbol;
  std::free(readable);
  return name;
}

// The link map names every module by its path but the program itself, whose entry is "".
std::string module_path(const link_map* map) {
  if (map && map->l_name && *map->l_name) return map->l_name;
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, size_t(n)) : "";
}

}  // namespace

NativeSymbol NativeSymbols::resolve(uintptr_t ip) {
  NativeSymbol out;
  Dl_info info{};
  link_map* map = nullptr;
  // A return address points after the call; look up the call itself so a call ending a function resolves right.
  uintptr_t probe = ip > 0 ? ip - 1 : ip;
  if (dladdr1(reinterpret_cast<void*>(probe), &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) == 0 ||
      info.dli_fname == nullptr) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "[unknown 0x%lx]", static_cast<unsigned long>(ip));
    out.name = buf;
    return out;
  }
  out.module = std::string(file_name_of(info.dli_fname ? info.dli_fname : ""));
  // An exported function keeps its exported name (pthread_cond_wait, not the ___pthread_cond_wait beside it in the
  // full table); the full tables name the rest.
  auto function_at = [&](uintptr_t address) -> std::optional<std::string> {
    Dl_info at = info;  // for `probe`, the lookup above has answered (each reads every exported symbol)
    bool found = address == probe || dladdr(reinterpret_cast<void*>(address), &at) != 0;
    if (found && at.dli_fbase == info.dli_fbase && at.dli_sname) return demangled(at.dli_sname);
    std::optional<std::string> full = modules_.function_at(module_path(map), map ? map->l_addr : 0, address);
    if (full) return demangled(full->c_str());
    return std::nullopt;
  };
  // A frame whose address is a function's first instruction (a thread interrupted there, or the signal return
  // trampoline __restore_rt, which no call precedes) has nothing before it but padding: its own address names it.
  std::optional<std::string> name = function_at(probe);
  if (!name && probe != ip) name = function_at(ip);
  if (name) {
    out.name = std::move(*name);
  } else {
    char buf[64];
    std::snprintf(buf, sizeof buf, "+0x%lx",
                  static_cast<unsigned long>(probe - reinterpret_cast<uintptr_t>(info.dli_fbase)));
    out.name = out.module + buf;
  }
  return out;
}

NativeSymbol NativeSymbols::lookup(uintptr_t ip) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = cache_.find(ip);
  if (it == cache_.end()) it = cache_.emplace(ip, resolve(ip)).first;
  return it->second;
}

size_t NativeSymbols::named() {
  std::lock_guard<std::mutex> lock(mutex_);
  return cache_.size();
}

}  // namespace umbra
