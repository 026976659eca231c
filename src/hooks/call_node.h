// One node of a thread's exact call tree: a method reached by one path from the thread's root.
//
// Threading: the owning thread creates nodes and updates calls/ticks (single writer, OwnerCounter). Readers (the
// report, the sampler) may walk the tree at any time: a child is fully built before it is published with a release
// store to first_child, and nodes are never moved or freed before the report is written, so a parent chain read
// from any published node is always consistent.
#pragma once

#include <atomic>
#include <cstdint>

#include "clr/corprof.h"
#include "hooks/owner_counter.h"

namespace umbra {

struct CallNode {
  clr::FunctionID function = 0;  // 0 for a thread's root
  CallNode* parent = nullptr;
  std::atomic<CallNode*> first_child{nullptr};
  CallNode* next_sibling = nullptr;  // immutable once the node is published
  CallNode* last_hit = nullptr;      // owner-only cache: the child entered last
  CallNode* successor = nullptr;     // owner-only cache: the sibling entered after this node returned, last time
  uint32_t children = 0;             // owner-only: past a few, the thread's ChildIndex finds them
  // Of self_samples, those taken while the thread was on a CPU; written only by the sampler. 32 bits fit beside
  // `children` at no cost in size (4 billion samples of one node at 1 kHz: 49 days); the sampler saturates it.
  std::atomic<uint32_t> self_cpu_samples{0};
  OwnerCounter calls;
  OwnerCounter total_ticks;   // closed calls only; open frames are added by the reader
  OwnerCounter tail_entries;  // entries that followed a tail call of the caller's frame
  std::atomic<uint64_t> self_samples{0};  // written only by the sampler

  CallNode* first_child_acquire() const { return first_child.load(std::memory_order_acquire); }
};

// Every node of every thread's tree is one of these: a field more must not make them bigger.
static_assert(sizeof(CallNode) == 88);

}  // namespace umbra
