// What a report node names: a method or native function, or a marker. Frames are interned for the life of the
// process, one per (name, module, kind): a report has millions of nodes and a few thousand methods, so nodes share
// their method's strings and two nodes are the same method exactly when they point to the same frame.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace umbra {

struct ReportFrame {
  std::string name;
  std::string module;
  std::string kind;  // "managed" | "native" | "marker" (where umbra stopped recording, and why)
  uint32_t id = 0;   // 0, 1, 2, ... in the order frames were interned: writers index arrays by it
};

// The one frame with these strings; safe from any thread (it locks). Never called from the hooks.
const ReportFrame* intern_frame(std::string_view name, std::string_view module = {},
                                std::string_view kind = "managed");

// The frame of a node not named yet (an empty managed name).
inline const ReportFrame* unnamed_frame() {
  static const ReportFrame* const frame = intern_frame("");
  return frame;
}

}  // namespace umbra
