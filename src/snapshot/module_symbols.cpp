#include "snapshot/module_symbols.h"

#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstring>

namespace umbra {
namespace {

// The file at `path`, opened, if it is a debug file for `module`: the same build id when the module has one (a
// debuglink names a file, and a file of that name from another build would name the wrong functions); a module
// without one is taken at its word. -1 otherwise.
int open_matching(Dwfl_Module* module, const std::string& path, const std::string& module_path) {
  if (path.empty() || path == module_path) return -1;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  const unsigned char* wanted = nullptr;
  GElf_Addr vaddr = 0;
  int wanted_length = dwfl_module_build_id(module, &wanted, &vaddr);
  if (wanted_length <= 0) return fd;
  bool same = false;
  if (Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr)) {
    const void* found = nullptr;
    ssize_t found_length = dwelf_elf_gnu_build_id(elf, &found);
    same = found_length == wanted_length && std::memcmp(found, wanted, size_t(wanted_length)) == 0;
    elf_end(elf);
  }
  if (same) return fd;
  ::close(fd);
  return -1;
}

// libdwfl's find_debuginfo callback, used when a module has no .symtab of its own. Not dwfl_standard_find_debuginfo:
// that one may ask a debuginfod server over the network when DEBUGINFOD_URLS is set.
int find_debug_file(Dwfl_Module* module, void** userdata, const char*, Dwarf_Addr, const char* file_name,
                    const char* debuglink, GElf_Word, char** debug_file_name) {
  const auto* self = static_cast<const ModuleSymbols*>(*userdata);
  if (self == nullptr) return -1;  // a module reported by someone else
  std::string module_path = file_name ? file_name : "";
  std::vector<std::string> candidates;
  const unsigned char* id = nullptr;
  GElf_Addr vaddr = 0;
  int id_length = dwfl_module_build_id(module, &id, &vaddr);
  if (id_length > 0) candidates.push_back(build_id_debug_path(self->debug_root(), id, size_t(id_length)));
  if (debuglink && *debuglink && !module_path.empty())
    for (std::string& path : debuglink_paths(module_path, debuglink, self->debug_root()))
      candidates.push_back(std::move(path));
  for (const std::string& path : candidates) {
    int fd = open_matching(module, path, module_path);
    if (fd < 0) continue;
    *debug_file_name = strdup(path.c_str());
    return fd;
  }
  return -1;
}

// Every module is reported with its file: libdwfl never has to find one.
int no_elf_to_find(Dwfl_Module*, void**, const char*, Dwarf_Addr, char**, Elf**) { return -1; }

const Dwfl_Callbacks kCallbacks = {&no_elf_to_find, &find_debug_file, nullptr, nullptr};

}  // namespace

ModuleSymbols::ModuleSymbols(std::string debug_root)
    : debug_root_(std::move(debug_root)), dwfl_(dwfl_begin(&kCallbacks)) {}

ModuleSymbols::~ModuleSymbols() {
  if (dwfl_) dwfl_end(dwfl_);
}

const ModuleSymbols::Module& ModuleSymbols::module(const std::string& path, uintptr_t load_bias) {
  auto it = modules_.find(path);
  if (it != modules_.end()) return it->second;
  Dwfl_Module* module = nullptr;
  if (dwfl_ && modules_.size() < kMaxModules) {
    dwfl_report_begin_add(dwfl_);
    module = dwfl_report_elf(dwfl_, path.c_str(), path.c_str(), -1, load_bias, true);
    dwfl_report_end(dwfl_, nullptr, nullptr);
    void** userdata = nullptr;
    if (module && dwfl_module_info(module, &userdata, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr))
      *userdata = this;
  }
  Module& entry = modules_[path];
  entry.module = module;
  if (module) entry.index = std::make_unique<SymbolIndex>(module);
  return entry;
}

std::optional<std::string> ModuleSymbols::function_at(const std::string& path, uintptr_t load_bias,
                                                      uintptr_t address) {
  const Module& found = module(path, load_bias);
  if (found.module == nullptr) return std::nullopt;
  bool decided = false;
  const char* name = found.index->name_at(address, decided);
  if (!decided) {
    GElf_Off offset = 0;
    GElf_Sym symbol{};
    name = dwfl_module_addrinfo(found.module, address, &offset, &symbol, nullptr, nullptr, nullptr);
  }
  if (name == nullptr || *name == '\0') return std::nullopt;
  // A .symtab names a versioned symbol with its version ("__libc_start_main@@GLIBC_2.34"); the function is the name.
  std::string function(name);
  if (size_t at = function.find('@'); at != 0 && at != std::string::npos) function.resize(at);
  return function;
}

}  // namespace umbra
