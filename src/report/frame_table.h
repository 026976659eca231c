// Numbers the frames of a report's nodes for the writers that list each frame once and refer to it by index (the
// JSON report, speedscope). What makes two frames one is the writer's: `Key` maps a frame to an array of string
// views (name, module, ...). Frames are interned and numbered, so each node costs an array lookup; the key is built
// once per distinct frame.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "report/report_frame.h"

namespace umbra {

template <typename Key>
class FrameTable {
 public:
  // Frames met recently, by address: they answer without reading the frame itself, whose line (one of thousands,
  // anywhere in the heap) is a cache miss more often than not. One per thread reading the table.
  class Recent {
   public:
    std::optional<size_t> find(const ReportFrame* frame) const {
      const Entry& entry = entries_[position(frame)];
      return entry.frame == frame ? std::optional<size_t>(entry.index) : std::nullopt;
    }
    void remember(const ReportFrame* frame, size_t index) { entries_[position(frame)] = {frame, index}; }

   private:
    struct Entry {
      const ReportFrame* frame = nullptr;
      size_t index = 0;
    };
    static constexpr size_t kEntries = 4096;
    static size_t position(const ReportFrame* frame) {
      return (reinterpret_cast<uintptr_t>(frame) >> 4) & (kEntries - 1);
    }
    std::vector<Entry> entries_ = std::vector<Entry>(kEntries);
  };

  // The index of a frame numbered before (by index_of), without changing the table: several threads may ask at
  // once, each with its own `recent`.
  size_t numbered(const ReportFrame* frame, Recent& recent) const {
    if (std::optional<size_t> index = recent.find(frame)) return *index;
    size_t index = by_id_[frame->id] - 1;
    recent.remember(frame, index);
    return index;
  }

  // The frame's index: the next one for a key not seen before. Asked once or twice per node of trees of millions.
  size_t index_of(const ReportFrame* frame) {
    if (std::optional<size_t> index = recent_.find(frame)) return *index;
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
    recent_.remember(frame, index);
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
  Recent recent_;
  std::vector<uint32_t> by_id_;  // ReportFrame::id -> index + 1, 0 if not seen yet
  std::unordered_map<const ReportFrame*, size_t, Hash, Equal> by_key_;
  std::vector<const ReportFrame*> frames_;
};

}  // namespace umbra
