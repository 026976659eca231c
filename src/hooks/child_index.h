// An index of the children of a thread's wide nodes: (parent, function) -> child, so that a method calling many
// others finds its child in one probe instead of walking the sibling list (real call trees have nodes with
// hundreds of children). Narrow nodes keep using the list alone; see ThreadShadow::find_child.
//
// Contract: owner thread only, from the hooks: never blocks, allocates, logs or throws. Its memory is two
// reservations made at construction (address space, committed on touch); the table grows by rehashing from one
// into the other. If it cannot grow it stops being usable, and the sibling lists, which always hold every child,
// answer instead. Nodes are named by their numbers, so an entry is 16 bytes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "clr/corprof.h"
#include "hooks/call_node.h"
#include "hooks/region.h"

namespace umbra {

class ChildIndex {
 public:
  // Room for the children of a tree of at most `max_nodes` nodes.
  explicit ChildIndex(size_t max_nodes);
  ChildIndex(const ChildIndex&) = delete;
  ChildIndex& operator=(const ChildIndex&) = delete;

  bool usable() const { return usable_; }
  // The child of `parent` for `function`, or 0 if it was never inserted.
  NodeNumber find(NodeNumber parent, clr::FunctionID function) const;
  // Returns false, and the index is no longer usable, if the table could not grow.
  bool insert(NodeNumber parent, clr::FunctionID function, NodeNumber child);
  size_t size() const { return used_; }

 private:
  struct Entry {
    clr::FunctionID function;
    NodeNumber parent;
    NodeNumber child;  // 0 for an empty slot
  };
  static_assert(sizeof(Entry) == 16);

  static size_t hash(NodeNumber parent, clr::FunctionID function) {
    uint64_t h = (function ^ (uint64_t(parent) << 32 | parent)) * 0x9E3779B97F4A7C15ull;
    return size_t(h ^ (h >> 29));
  }
  static void place(Entry* table, size_t mask, const Entry& entry);
  bool grow();

  Region regions_[2];
  int current_ = 0;
  Entry* table_ = nullptr;
  size_t mask_ = 0;  // capacity - 1; capacity 0 until the first insert
  size_t used_ = 0;
  bool usable_ = true;
};

__attribute__((always_inline)) inline NodeNumber ChildIndex::find(NodeNumber parent, clr::FunctionID function) const {
  if (table_ == nullptr) return 0;
  for (size_t i = hash(parent, function) & mask_;; i = (i + 1) & mask_) {
    const Entry& e = table_[i];
    if (e.child == 0) return 0;
    if (e.function == function && e.parent == parent) return e.child;
  }
}

}  // namespace umbra
