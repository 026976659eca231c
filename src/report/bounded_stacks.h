// Bounds for the writers that repeat a stack's whole path for every stack: collapsed stacks and speedscope's sampled
// profiles. Written in full, a chain D deep costs O(D^2) (8,000 levels made 64 MB of collapsed stacks, and reports
// may be 131,072 deep). Bounded, a stack keeps its max_frames root-most frames and everything deeper is merged into
// one stack that ends in the frame kDeeperFrames, with their weights summed there: totals do not change. Past
// max_bytes of stacks, later stacks are left out and counted. The writer says what it cut (describe_cuts).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "report/report.h"

namespace umbra {

inline constexpr const char* kDeeperFrames = "[deeper frames not shown]";

struct StackLimits {
  // A chain at the limit writes max_frames^2 / 2 frames: 1.5 MB at 3 bytes a frame, but 512 MB of names cut at
  // display_text's 1,000 bytes, which max_bytes bounds.
  size_t max_frames = 1024;
  size_t max_bytes = size_t(256) << 20;  // of stacks in one file
};

struct StackCuts {
  uint64_t merged = 0;    // stacks (nodes with weight) deeper than max_frames, merged under kDeeperFrames
  uint64_t left_out = 0;  // stacks not written once max_bytes was reached
};

// One line for the user on what the `format` report cut, or "" when it cut nothing.
std::string describe_cuts(const std::string& format, const StackLimits& limits, const StackCuts& cuts);

struct StackStep {
  const ReportNode& node;
  size_t depth;            // 0 for a root; always below max_frames
  uint64_t weight;         // the node's own
  uint64_t deeper_weight;  // at depth max_frames - 1, the weight of everything under the node; 0 elsewhere
};

// Calls `visit` for every node of `roots` less than max_frames deep, in preorder, and adds to cuts.merged the nodes
// with weight below them. Iterative: trees are as deep as the deepest call stack.
void walk_bounded_stacks(const std::vector<ReportNode>& roots, size_t max_frames,
                         const std::function<uint64_t(const ReportNode&)>& weight_of,
                         const std::function<void(const StackStep&)>& visit, StackCuts& cuts);

}  // namespace umbra
