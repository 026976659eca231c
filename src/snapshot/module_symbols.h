// Function names from a module's full symbol table, where dladdr sees only the exported ones: the module's own
// .symtab, or, for a stripped module, its separate debug file (snapshot/debug_file_paths.h), read with elfutils'
// libdwfl. A module with neither keeps its dynamic symbols.
//
// Contract: called at report time only (never in a hook, a signal handler or under suspension); not thread-safe
// (NativeSymbols holds its lock around it). Each module is opened once, when an address in it is first asked for,
// and its files are mapped, not copied; at most kMaxModules modules are opened, the rest answer nothing. No network:
// debug files are looked for on this machine only.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "snapshot/debug_file_paths.h"
#include "snapshot/symbol_index.h"

typedef struct Dwfl Dwfl;
typedef struct Dwfl_Module Dwfl_Module;

namespace umbra {

class ModuleSymbols {
 public:
  // `debug_root`: where separate debug files are installed (tests point it elsewhere).
  explicit ModuleSymbols(std::string debug_root = kSystemDebugRoot);
  ~ModuleSymbols();
  ModuleSymbols(const ModuleSymbols&) = delete;
  ModuleSymbols& operator=(const ModuleSymbols&) = delete;

  // The symbol `address` lies in, as stored (mangled) but for a symbol version, for the module at `path` loaded
  // with `load_bias` (the link map's l_addr); nothing when its tables name none there.
  std::optional<std::string> function_at(const std::string& path, uintptr_t load_bias, uintptr_t address);

  static constexpr size_t kMaxModules = 512;

  const std::string& debug_root() const { return debug_root_; }

 private:
  struct Module {
    Dwfl_Module* module = nullptr;  // nullptr: not readable as ELF
    std::unique_ptr<SymbolIndex> index;
  };
  const Module& module(const std::string& path, uintptr_t load_bias);

  std::string debug_root_;
  Dwfl* dwfl_ = nullptr;
  std::unordered_map<std::string, Module> modules_;
};

}  // namespace umbra
