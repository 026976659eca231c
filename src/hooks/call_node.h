// One node of a thread's exact call tree: a method reached by one path from the thread's root.
//
// A node is two records at the same number in two arrays of its thread's shadow: the HotNode, what an enter or a
// leave touches (two to a cache line, so that the nodes a request goes through take as few lines as possible), and
// the CallNode, what readers walk (the tree's links, the sampler's counts).
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

// Node numbers index a thread's node arrays: 0 is the root, which is no one's child, so 0 also means "none".
using NodeNumber = uint32_t;

struct HotNode {
  clr::FunctionID function = 0;
  OwnerCounter calls{};
  OwnerCounter total_ticks{};  // closed calls only; open frames are added by the reader
  NodeNumber successor = 0;    // owner-only cache: the sibling entered after this node returned, last time
  NodeNumber last_hit = 0;     // owner-only cache: the child entered last
};
static_assert(sizeof(HotNode) == 32, "two hot nodes to a cache line");

struct CallNode {
  clr::FunctionID function = 0;  // 0 for a thread's root
  CallNode* parent = nullptr;
  std::atomic<CallNode*> first_child{nullptr};
  CallNode* next_sibling = nullptr;  // immutable once the node is published
  const HotNode* hot = nullptr;      // this node's counters
  uint32_t children = 0;             // owner-only: past a few, the thread's ChildIndex finds them
  // Of self_samples, those taken while the thread was on a CPU; written only by the sampler. 32 bits fit beside
  // `children` at no cost in size (4 billion samples of one node at 1 kHz: 49 days); the sampler saturates it.
  std::atomic<uint32_t> self_cpu_samples{0};
  OwnerCounter tail_entries{};  // entries that followed a tail call of the caller's frame
  std::atomic<uint64_t> self_samples{0};  // written only by the sampler

  CallNode* first_child_acquire() const { return first_child.load(std::memory_order_acquire); }
  uint64_t calls() const { return hot->calls.get(); }
  uint64_t total_ticks() const { return hot->total_ticks.get(); }
};

// Every node of every thread's tree is one of each: a field more must not make them bigger.
static_assert(sizeof(CallNode) == 64);
inline constexpr size_t kNodeBytes = sizeof(HotNode) + sizeof(CallNode);

}  // namespace umbra
