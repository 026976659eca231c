// Native instruction pointer -> "function" and "module" (libz.so.1, libc.so.6, ...), demangled, cached per IP.
// Functions are named from the module's exported symbols (dladdr), and the others from its full symbol table where
// there is one (its .symtab or a separate debug file: snapshot/module_symbols.h); what neither names stays
// "module+0xoffset".
// Never called in a signal handler or under suspension: the report names native frames once the program's threads
// are no longer walked.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>

#include "snapshot/module_symbols.h"

namespace umbra {

struct NativeSymbol {
  std::string name;    // demangled function, or "module+0xoffset" when no symbol table names it
  std::string module;  // file name of the shared object
};

using NativeLookup = std::function<NativeSymbol(uintptr_t ip)>;

class NativeSymbols {
 public:
  // `debug_root`: where separate debug files are installed (tests point it elsewhere).
  explicit NativeSymbols(std::string debug_root = kSystemDebugRoot) : modules_(std::move(debug_root)) {}

  NativeSymbol lookup(uintptr_t ip);
  // How many addresses have been named so far.
  size_t named();
  // Held while the process is copied for its report writer (profiler/report_writer_process.h).
  std::mutex& mutex_for_copy() { return mutex_; }

 private:
  NativeSymbol resolve(uintptr_t ip);  // under mutex_

  std::mutex mutex_;
  std::unordered_map<uintptr_t, NativeSymbol> cache_;
  ModuleSymbols modules_;
};

}  // namespace umbra
