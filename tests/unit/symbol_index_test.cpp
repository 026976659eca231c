// The address index of a module's symbols names every address as libdwfl's own lookup does (a scan of every
// symbol), on real libraries: the C library (thousands of symbols, many aliases at one address) and this program.
#include <gtest/gtest.h>
#include <elfutils/libdwfl.h>
#include <link.h>

#include <cstring>
#include <string>
#include <vector>

#include "snapshot/symbol_index.h"

namespace umbra {
namespace {

std::string loaded_path_containing(const char* part) {
  std::string found;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        auto* want = static_cast<std::string*>(data);
        if (info->dlpi_name && std::strstr(info->dlpi_name, want->c_str())) {
          *want = info->dlpi_name;
          return 1;
        }
        return 0;
      },
      &(found = part));
  return found == part ? std::string() : found;
}

// Symbols' first, middle and last bytes, the bytes just past them, and points between symbols.
void expect_same_names_as_libdwfl(const std::string& path) {
  ASSERT_FALSE(path.empty());
  static const Dwfl_Callbacks callbacks = {dwfl_build_id_find_elf, dwfl_standard_find_debuginfo, nullptr, nullptr};
  Dwfl* dwfl = dwfl_begin(&callbacks);
  dwfl_report_begin(dwfl);
  Dwfl_Module* module = dwfl_report_elf(dwfl, path.c_str(), path.c_str(), -1, 0x100000, true);
  dwfl_report_end(dwfl, nullptr, nullptr);
  ASSERT_NE(module, nullptr) << path;
  SymbolIndex index(module);
  std::vector<GElf_Addr> addresses;
  std::vector<bool> inside;  // in a function with a size: where frames are
  int count = dwfl_module_getsymtab(module);
  ASSERT_GT(count, 100) << path;
  for (int i = 1; i < count; ++i) {
    GElf_Sym symbol{};
    GElf_Addr at = 0;
    if (!dwfl_module_getsym_info(module, i, &symbol, &at, nullptr, nullptr, nullptr) || at == 0) continue;
    const bool function = GELF_ST_TYPE(symbol.st_info) == STT_FUNC && symbol.st_size > 0;
    // Every start (where aliases share an address); the other points of one symbol in 8: libdwfl's scans of the
    // whole table take seconds otherwise.
    if (count > 5000 && i % 4 != 0) continue;  // a large table: a symbol in 4
    std::vector<GElf_Addr> points = {at};
    if (i % 8 == 0) points.insert(points.end(), {at + symbol.st_size / 2, at + symbol.st_size, at + symbol.st_size + 1, at - 1});
    for (GElf_Addr a : points) {
      addresses.push_back(a);
      inside.push_back(function && a - at < symbol.st_size);
    }
  }
  size_t decided = 0, differing = 0, inside_functions = 0, decided_inside = 0;
  for (size_t i = 0; i < addresses.size(); ++i) {
    GElf_Addr a = addresses[i];
    bool by_index = false;
    const char* ours = index.name_at(uintptr_t(a), by_index);
    inside_functions += inside[i];
    if (!by_index) continue;
    ++decided;
    decided_inside += inside[i];
    GElf_Off offset = 0;
    GElf_Sym symbol{};
    const char* theirs = dwfl_module_addrinfo(module, a, &offset, &symbol, nullptr, nullptr, nullptr);
    bool same = (ours == nullptr) == (theirs == nullptr || *theirs == '\0') &&
                (ours == nullptr || std::strcmp(ours, theirs) == 0);
    if (!same && ++differing <= 5)
      ADD_FAILURE() << path << " at 0x" << std::hex << a << ": " << (ours ? ours : "(none)") << " against libdwfl's "
                    << (theirs ? theirs : "(none)");
  }
  EXPECT_GT(decided_inside, inside_functions * 99 / 100) << "the index names nearly every address in a function";
  EXPECT_EQ(differing, 0u) << "of " << decided;
  dwfl_end(dwfl);
}

TEST(SymbolIndex, NamesEveryAddressOfTheCLibraryAsLibdwflDoes) {
  expect_same_names_as_libdwfl(loaded_path_containing("libc.so.6"));
}

TEST(SymbolIndex, NamesEveryAddressOfThisProgramAsLibdwflDoes) {
  expect_same_names_as_libdwfl("/proc/self/exe");
}

}  // namespace
}  // namespace umbra
