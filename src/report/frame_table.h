// Numbers the frames of a report's nodes for the writers that list each frame once and refer to it by index (the
// JSON report, speedscope). What makes two frames one is the writer's: `Key` maps a frame to an array of string
// views (name, module, ...). Frames are interned and numbered, so each node costs an array lookup; the key is built
// once per distinct frame.
#pragma once

#include <cstddef>
#include <cstdint>
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
    // Asked once or twice per node of trees of millions: the frames met recently answer without reading the
    // frame itself, whose line (one of thousands, anywhere in the heap) is a cache miss more often than not.
    Recent& recent = recent_[(reinterpret_cast<uintptr_t>(frame) >> 4) & (kRecent - 1)];
    if (recent.frame == frame) return recent.index;
    size_t index;
    if (frame->id < by_id_.size() && by_id_[frame->id] != 0) {
      index = by_id_[frame->id] - 1;
    } else {
      auto [keyed, new_key] = by_key_.try_emplace(frame, frames_.size());
      if (new_key) frames_.push_back(frame);
      if (frame->id >= by_id_.size()) by_id_.resize(size_t(frame->id) * 2 + 64, 0);
      by_id_[frame->id] = uint32_t(keyed->second + 1);
      index = keyed->second;
    }
    recent = {frame, index};
    return index;
  }

  // The first frame seen with each key, in index order.
  const std::vector<const ReportFrame*>& frames() const { return frames_; }

 private:
  struct Hash {
    size_t operator()(const ReportFrame* frame) const { return hash_frame_strings(Key()(*frame)); }
  };
  struct Equal {
    bool operator()(const ReportFrame* a, const ReportFrame* b) const { return Key()(*a) == Key()(*b); }
  };
  static constexpr size_t kRecent = 4096;
  struct Recent {
    const ReportFrame* frame = nullptr;
    size_t index = 0;
  };
  std::vector<Recent> recent_ = std::vector<Recent>(kRecent);
  std::vector<uint32_t> by_id_;  // ReportFrame::id -> index + 1, 0 if not seen yet
  std::unordered_map<const ReportFrame*, size_t, Hash, Equal> by_key_;
  std::vector<const ReportFrame*> frames_;
};

}  // namespace umbra
