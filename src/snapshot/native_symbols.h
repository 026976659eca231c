// Native instruction pointer -> "function" and "module" (libz.so.1, libc.so.6, ...), demangled, cached per IP.
// Never called in a signal handler or under suspension: the sampler symbolizes after ResumeRuntime.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>

namespace umbra {

struct NativeSymbol {
  std::string name;    // demangled function, or "module+0xoffset" when the module exports no symbol for it
  std::string module;  // file name of the shared object
};

using NativeLookup = std::function<NativeSymbol(uintptr_t ip)>;

class NativeSymbols {
 public:
  NativeSymbol lookup(uintptr_t ip);

 private:
  std::mutex mutex_;
  std::unordered_map<uintptr_t, NativeSymbol> cache_;
};

}  // namespace umbra
