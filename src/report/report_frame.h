// What a report node names: a method or native function, or a marker. Frames are interned for the life of the
// process, one per (name, module, kind): a report has millions of nodes and a few thousand methods, so nodes share
// their method's strings and two nodes are the same method exactly when they point to the same frame.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace umbra {

struct ReportFrame {
  std::string name;
  std::string module;
  std::string kind;  // "managed" | "native" | "marker" (where umbra stopped recording, and why)
  uint32_t id = 0;   // 0, 1, 2, ... in the order frames were interned: writers index arrays by it
};

// The hash of a frame's strings (or of some of them), in order: interning and the writers' frame tables combine
// them alike.
inline size_t hash_frame_strings(std::span<const std::string_view> parts) {
  size_t h = 0;
  for (std::string_view part : parts) h = h * 1000003 ^ std::hash<std::string_view>()(part);
  return h;
}

// The marker a sampled stack that stopped short of its thread's start is kept under, as its root (sampled mode,
// walker by signal: snapshot/stack_end.h).
inline constexpr const char* kStackIncomplete = "[stack incomplete]";

// The one frame with these strings; safe from any thread (it locks). Never called from the hooks.
const ReportFrame* intern_frame(std::string_view name, std::string_view module = {},
                                std::string_view kind = "managed");

// Every frame interned so far, each at its id.
std::vector<const ReportFrame*> interned_frames();

// The frame of a node not named yet (an empty managed name).
inline const ReportFrame* unnamed_frame() {
  static const ReportFrame* const frame = intern_frame("");
  return frame;
}

}  // namespace umbra
