// A module's symbols sorted by address, built once from libdwfl's table, so that naming an address is a binary
// search. libdwfl's own lookup (dwfl_module_addrinfo) reads every symbol of the table for each address: naming a
// hundred native frames of a short program read libc's thousands of symbols a hundred times, most of what its
// report cost at exit. Where the index cannot tell alone (an address under no sized symbol in a table that also
// has symbols without a size, or symbols nested in a larger one), libdwfl's lookup decides, as before.
//
// Contract: report time only; not thread-safe. The names point into libdwfl's tables: the index lives no longer
// than the Dwfl its module belongs to.
#pragma once

#include <cstdint>
#include <vector>

typedef struct Dwfl_Module Dwfl_Module;

namespace umbra {

class SymbolIndex {
 public:
  explicit SymbolIndex(Dwfl_Module* module);

  // The name of the symbol holding `address` (nullptr: none), when `decided`; otherwise libdwfl's lookup is to be
  // asked.
  const char* name_at(uintptr_t address, bool& decided) const;

 private:
  struct Symbol {
    uintptr_t start, end;
    int rank;  // at one address libdwfl prefers global to weak to local, then the smaller, then the first found
    int table_index;
    const char* name;
  };
  std::vector<Symbol> symbols_;    // sized symbols, by start, rank and size, then in the table's order
  std::vector<uintptr_t> max_end_;  // max_end_[i]: the largest end among symbols_[0..i]
  bool has_sizeless_ = false;
};

}  // namespace umbra
