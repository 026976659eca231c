// Where a stack taken by signal meets the shadow stack read at the same instant (shadow mode): how many of its
// frames, counted from the leaf, lie above the innermost hooked frame, and which frames lie between the hooked frames
// below it. Pure: the sampler thread resolves the frames first (sampler/signal_sampling.h).
#pragma once

#include <cstddef>
#include <vector>

#include "clr/corprof.h"
#include "hooks/call_node.h"
#include "merge/splice_votes.h"
#include "snapshot/sampled_tree.h"

namespace umbra {

struct SignalStackAlignment {
  enum class Outcome {
    kOnHookedFrame,   // the hooked method itself was running: a sample on its node
    kAboveHooked,     // `above` frames above the innermost hooked frame
    kNoHookedFrame,   // no hooked frame on the stack: `above` frames, from the outermost managed one up
    kUnaligned,       // the hooked frame is not in the stack: a sample on its node alone
    kNoManagedFrame,  // no hooked frame and no managed one
    kTruncated,       // no hooked frame, and the stack was longer than the capture
  };
  Outcome outcome;
  size_t above = 0;
  // kNoHookedFrame: the caller a frameless leaf hid from the frame-pointer chain (found by the word on top of the
  // stack), to be put back between the leaf and the next frame; 0 when none is missing.
  clr::FunctionID leaf_caller = 0;
};

// `leaf_first`: the stack's frames, JIT-compiled ones as their methods. `node`: the shadow's current node (nullptr
// or the root: no hooked frame). `returns_into`: the method the word on top of the stack returns into, if any
// (a frameless leaf's caller, which the frame-pointer chain skips; so is a method interrupted in its prologue or
// epilogue, before its frame is set up or after it is taken down).
SignalStackAlignment align_with_shadow(const SampleFrame* leaf_first, size_t count, const CallNode* node,
                                       clr::FunctionID returns_into, bool truncated);

// `node`'s frame is leaf_first[at]. Each hooked node from it down to the thread's start votes for the frames found
// between its frame and its parent's (all native: a managed frame where the parent's should be, a method without
// hooks or a frame the shadow stack no longer has, ends the votes, leaving what lies there to reconcile). The run
// below the outermost hooked frame is the thread's start, voted only when the stack `reaches_start`. `run`: scratch.
void vote_splices(SpliceMap& votes, const SampleFrame* leaf_first, size_t count, const CallNode* node, size_t at,
                  bool reaches_start, std::vector<SampleFrame>& run);

// A node for a method (not a root, nor a marker of the tree's limits).
bool is_method_node(const CallNode& node);

}  // namespace umbra
