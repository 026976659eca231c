#include "hooks/child_index.h"

#include <bit>
#include <cstring>

namespace umbra {
namespace {

constexpr size_t kFirstCapacity = 1024;
// Grown at three quarters full: linear probing stays short, and the table is at most about 2.7 entries per child.
bool too_full(size_t used, size_t capacity) { return used * 4 > capacity * 3; }

}  // namespace

ChildIndex::ChildIndex(size_t max_nodes) {
  // Room for every node below the load that triggers growth, in each of the two tables.
  size_t bytes = std::bit_ceil(max_nodes / 3 * 4 + kFirstCapacity) * sizeof(Entry);
  for (Region& region : regions_) region = Region(bytes, kFirstCapacity * sizeof(Entry));
}

void ChildIndex::place(Entry* table, size_t mask, const Entry& entry) {
  size_t i = hash(entry.parent, entry.function) & mask;
  while (table[i].child != 0) i = (i + 1) & mask;
  table[i] = entry;
}

bool ChildIndex::grow() {
  size_t capacity = table_ ? (mask_ + 1) * 2 : kFirstCapacity;
  int next = table_ ? 1 - current_ : 0;
  Region& region = regions_[next];
  if (region.size() < capacity * sizeof(Entry)) return false;
  // The other table's memory may hold a table from two growths ago.
  auto* fresh = static_cast<Entry*>(region.data());
  std::memset(fresh, 0, capacity * sizeof(Entry));
  if (table_) {
    for (size_t i = 0; i <= mask_; ++i)
      if (table_[i].child != 0) place(fresh, capacity - 1, table_[i]);
  }
  table_ = fresh;
  mask_ = capacity - 1;
  current_ = next;
  return true;
}

bool ChildIndex::insert(NodeNumber parent, clr::FunctionID function, NodeNumber child) {
  if (!usable_) return false;
  if (table_ == nullptr || too_full(used_ + 1, mask_ + 1)) {
    if (!grow()) {
      usable_ = false;
      return false;
    }
  }
  place(table_, mask_, Entry{function, parent, child});
  ++used_;
  return true;
}

}  // namespace umbra
