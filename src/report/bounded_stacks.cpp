#include "report/bounded_stacks.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace umbra {
namespace {

// Saturates: weights read from a file can be anything.
uint64_t add(uint64_t a, uint64_t b) {
  return b > std::numeric_limits<uint64_t>::max() - a ? std::numeric_limits<uint64_t>::max() : a + b;
}

uint64_t weight_under(const ReportNode& node, const std::function<uint64_t(const ReportNode&)>& weight_of,
                      uint64_t& weighted_nodes) {
  uint64_t total = 0;
  std::vector<const ReportNode*> pending;
  for (const auto& child : node.children) pending.push_back(&child);
  while (!pending.empty()) {
    const ReportNode* n = pending.back();
    pending.pop_back();
    if (uint64_t w = weight_of(*n)) {
      total = add(total, w);
      ++weighted_nodes;
    }
    for (const auto& child : n->children) pending.push_back(&child);
  }
  return total;
}

std::string stacks_were(uint64_t n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? " was" : "s were");
}

std::string size_text(size_t bytes) {
  constexpr size_t kMiB = size_t(1) << 20;
  return bytes % kMiB == 0 ? std::to_string(bytes / kMiB) + " MiB" : std::to_string(bytes) + " bytes";
}

}  // namespace

std::string describe_cuts(const std::string& format, const StackLimits& limits, const StackCuts& cuts) {
  if (cuts.merged == 0 && cuts.left_out == 0) return {};
  std::string line = "the " + format + " report";
  if (cuts.merged)
    line += " keeps the first " + std::to_string(limits.max_frames) + " frames of each stack; " +
            stacks_were(cuts.merged, "deeper stack") + " merged under '" + kDeeperFrames + "'";
  if (cuts.merged && cuts.left_out) line += "; it";
  if (cuts.left_out)
    line += " stops at " + size_text(limits.max_bytes) + " of stacks; " + stacks_were(cuts.left_out, "stack") +
            " left out";
  return line;
}

void walk_bounded_stacks(const std::vector<ReportNode>& roots, size_t max_frames,
                         const std::function<uint64_t(const ReportNode&)>& weight_of,
                         const std::function<void(const StackStep&)>& visit, StackCuts& cuts) {
  max_frames = std::max<size_t>(max_frames, 1);
  std::vector<std::pair<const ReportNode*, size_t>> pending;
  for (auto it = roots.rbegin(); it != roots.rend(); ++it) pending.emplace_back(&*it, 0);
  while (!pending.empty()) {
    auto [node, depth] = pending.back();
    pending.pop_back();
    uint64_t deeper = 0;
    if (depth + 1 == max_frames) {
      deeper = weight_under(*node, weight_of, cuts.merged);
    } else {
      for (auto it = node->children.rbegin(); it != node->children.rend(); ++it) pending.emplace_back(&*it, depth + 1);
    }
    visit(StackStep{*node, depth, weight_of(*node), deeper});
  }
}

}  // namespace umbra
