// Numbers the frames of a report's nodes for the writers that list each frame once and refer to it by index (the
// JSON report, speedscope). What makes two nodes one frame is the writer's: `Key` maps a node to a string.
#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include "report/report.h"

namespace umbra {

template <typename Key>
class FrameTable {
 public:
  // The frame's index: the next one for a key not seen before.
  size_t index_of(const ReportNode& node) {
    auto [it, added] = index_.try_emplace(Key()(node), frames_.size());
    if (added) frames_.push_back(&node);
    return it->second;
  }

  // The first node seen with each frame, in index order. The nodes must outlive the table.
  const std::vector<const ReportNode*>& frames() const { return frames_; }

 private:
  std::unordered_map<std::string, size_t> index_;
  std::vector<const ReportNode*> frames_;
};

}  // namespace umbra
