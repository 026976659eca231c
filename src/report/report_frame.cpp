#include "report/report_frame.h"

#include <array>
#include <mutex>
#include <tuple>
#include <unordered_set>
#include <vector>

namespace umbra {
namespace {

struct FrameHash {
  using is_transparent = void;
  size_t operator()(const ReportFrame& f) const { return hash(f.name, f.module, f.kind); }
  size_t operator()(const std::tuple<std::string_view, std::string_view, std::string_view>& k) const {
    return hash(std::get<0>(k), std::get<1>(k), std::get<2>(k));
  }
  static size_t hash(std::string_view name, std::string_view module, std::string_view kind) {
    return hash_frame_strings(std::array<std::string_view, 3>{name, module, kind});
  }
};

struct FrameEqual {
  using is_transparent = void;
  using Key = std::tuple<std::string_view, std::string_view, std::string_view>;
  static Key key(const ReportFrame& f) { return {f.name, f.module, f.kind}; }
  static Key key(const Key& k) { return k; }
  bool operator()(const auto& a, const auto& b) const { return key(a) == key(b); }
};

struct Frames {
  std::mutex mutex;
  std::unordered_set<ReportFrame, FrameHash, FrameEqual> set;  // node-based: addresses stay put
  std::vector<const ReportFrame*> by_id;
};

Frames& frames() {
  // Never destroyed: reports are written from exit handlers, after static destructors may have run.
  static Frames* frames = new Frames;
  return *frames;
}

}  // namespace

const ReportFrame* intern_frame(std::string_view name, std::string_view module, std::string_view kind) {
  Frames& interned = frames();
  std::lock_guard<std::mutex> lock(interned.mutex);
  auto key = std::make_tuple(name, module, kind);
  if (auto it = interned.set.find(key); it != interned.set.end()) return &*it;
  uint32_t id = uint32_t(interned.set.size());
  const ReportFrame* frame =
      &*interned.set.insert(ReportFrame{std::string(name), std::string(module), std::string(kind), id}).first;
  interned.by_id.push_back(frame);
  return frame;
}

std::vector<const ReportFrame*> interned_frames() {
  Frames& interned = frames();
  std::lock_guard<std::mutex> lock(interned.mutex);
  return interned.by_id;
}

}  // namespace umbra
