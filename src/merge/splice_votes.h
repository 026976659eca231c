// Runs of frames found between a shadow node and its parent on real stacks (root first): the native segment a
// callback came through, or managed frames the hooks did not see. Each look at a node votes, with its run or with
// nothing between; the report shows the run when it was seen at least half the time. Two kinds of look vote:
// reconcile snapshots (merge/reconcile.h) and stacks taken by signal (sampler/signal_sampling.h), which see the
// frames of callbacks too short or too frequent for a snapshot to meet.
//
// Contract: not thread-safe; the sampler votes under its tree mutex, which the report takes to read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "hooks/call_node.h"
#include "snapshot/sampled_tree.h"

namespace umbra {

struct RememberedSplice {
  std::vector<SampleFrame> frames;  // the last run seen
  uint64_t seen_with = 0;
  uint64_t seen_without = 0;
  bool shown() const { return !frames.empty() && seen_with >= seen_without; }
};
using SpliceMap = std::unordered_map<const CallNode*, RememberedSplice>;

// One look at `node`: `count` frames (root first) between it and its parent, 0 for none.
void vote_splice(SpliceMap& map, const CallNode* node, const SampleFrame* root_first, size_t count);

}  // namespace umbra
