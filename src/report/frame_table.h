// Numbers the frames of a report's nodes for the writers that list each frame once and refer to it by index (the
// JSON report, speedscope). What makes two nodes one frame is the writer's: `Key` maps a node to an array of
// string views (name, module, ...). Nodes are compared in place: a report has millions, and building a key string
// for each one cost more than the rest of the writing.
#pragma once

#include <cstddef>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "report/report.h"

namespace umbra {

template <typename Key>
class FrameTable {
 public:
  // The frame's index: the next one for a key not seen before.
  size_t index_of(const ReportNode& node) {
    auto [it, added] = index_.try_emplace(&node, frames_.size());
    if (added) frames_.push_back(&node);
    return it->second;
  }

  // The first node seen with each frame, in index order. The nodes must outlive the table.
  const std::vector<const ReportNode*>& frames() const { return frames_; }

 private:
  struct Hash {
    size_t operator()(const ReportNode* node) const {
      size_t h = 0;
      for (std::string_view part : Key()(*node)) h = h * 1000003 ^ std::hash<std::string_view>()(part);
      return h;
    }
  };
  struct Equal {
    bool operator()(const ReportNode* a, const ReportNode* b) const { return Key()(*a) == Key()(*b); }
  };
  std::unordered_map<const ReportNode*, size_t, Hash, Equal> index_;
  std::vector<const ReportNode*> frames_;
};

}  // namespace umbra
