// Numbers the frames of a report's nodes for the writers that list each frame once and refer to it by index (the
// JSON report, speedscope). What makes two frames one is the writer's: `Key` maps a frame to an array of string
// views (name, module, ...). Frames are interned, so each node costs one pointer lookup; the key is built once per
// distinct frame.
#pragma once

#include <cstddef>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "report/report_frame.h"

namespace umbra {

template <typename Key>
class FrameTable {
 public:
  // The frame's index: the next one for a key not seen before.
  size_t index_of(const ReportFrame* frame) {
    auto [it, added] = by_pointer_.try_emplace(frame, 0);
    if (added) {
      auto [keyed, new_key] = by_key_.try_emplace(frame, frames_.size());
      if (new_key) frames_.push_back(frame);
      it->second = keyed->second;
    }
    return it->second;
  }

  // The first frame seen with each key, in index order.
  const std::vector<const ReportFrame*>& frames() const { return frames_; }

 private:
  struct Hash {
    size_t operator()(const ReportFrame* frame) const {
      size_t h = 0;
      for (std::string_view part : Key()(*frame)) h = h * 1000003 ^ std::hash<std::string_view>()(part);
      return h;
    }
  };
  struct Equal {
    bool operator()(const ReportFrame* a, const ReportFrame* b) const { return Key()(*a) == Key()(*b); }
  };
  std::unordered_map<const ReportFrame*, size_t> by_pointer_;
  std::unordered_map<const ReportFrame*, size_t, Hash, Equal> by_key_;
  std::vector<const ReportFrame*> frames_;
};

}  // namespace umbra
