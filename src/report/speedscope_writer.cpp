#include "report/speedscope_writer.h"

#include <algorithm>
#include <array>
#include <vector>

#include "report/frame_table.h"
#include "util/decimal.h"

namespace umbra {
namespace {

// speedscope's frames are a name and a file: nodes of another kind with the same name are one frame.
struct NameModule {
  std::array<std::string_view, 2> operator()(const ReportFrame& frame) const { return {frame.name, frame.module}; }
};
using Frames = FrameTable<NameModule>;

void append_frames(std::string& out, const Frames& frames) {
  out += "\"frames\":[";
  for (size_t i = 0; i < frames.frames().size(); ++i) {
    const ReportFrame& frame = *frames.frames()[i];
    if (i) out += ',';
    out += "{\"name\":";
    append_json_string(out, frame.name);
    if (!frame.module.empty()) {
      out += ",\"file\":";
      append_json_string(out, frame.module);
    }
    out += '}';
  }
  out += ']';
}

void append_u64(std::string& out, uint64_t v) { append_decimal(out, v); }

void event(std::string& out, bool& first, char type, uint64_t at, size_t frame) {
  if (!first) out += ',';
  first = false;
  out += "{\"type\":\"";
  out += type;
  out += "\",\"at\":";
  append_u64(out, at);
  out += ",\"frame\":";
  append_u64(out, frame);
  out += '}';
}

// Opens `node` at `at`, lays its children out inside it one after another, closes it at at + total. Children never
// exceed their parent, but each is clipped to the room left so that rounding can never break the nesting.
void lay_out(const ReportNode& node, uint64_t at, uint64_t total, Frames& frames, std::string& out, bool& first) {
  size_t frame = frames.index_of(node.frame);
  event(out, first, 'O', at, frame);
  uint64_t child_at = at;
  for (const auto& child : node.children) {
    uint64_t child_total = std::min(child.total_ns.value_or(0), at + total - child_at);
    if (child_total == 0) continue;  // nothing to draw
    lay_out(child, child_at, child_total, frames, out, first);
    child_at += child_total;
  }
  event(out, first, 'C', at + total, frame);
}

// One stack per node with weight (self samples, or those on a CPU), as frame indices from the root. Bounded
// (report/bounded_stacks.h): `bytes` counts what all threads wrote so far.
void sampled_stacks(const ReportThread& thread, const StackLimits& limits, Frames& frames, const ReportFrame* marker,
                    bool on_cpu, std::string& samples, std::string& weights, size_t& bytes, StackCuts& cuts) {
  std::vector<size_t> path;
  std::string stack;
  auto emit = [&](uint64_t weight) {
    stack = samples.empty() ? "[" : ",[";
    for (size_t i = 0; i < path.size(); ++i) {
      if (i) stack += ',';
      append_u64(stack, path[i]);
    }
    stack += ']';
    std::string w = (weights.empty() ? "" : ",") + std::to_string(weight);
    if (bytes + stack.size() + w.size() > limits.max_bytes) {
      ++cuts.left_out;
      return;
    }
    bytes += stack.size() + w.size();
    samples += stack;
    weights += w;
  };
  auto self_samples = [&](const ReportNode& node) { return on_cpu ? node.self_cpu_samples : node.self_samples; };
  walk_bounded_stacks(thread.roots, limits.max_frames, self_samples, [&](const StackStep& step) {
    path.resize(step.depth);
    path.push_back(frames.index_of(step.node.frame));
    if (step.weight) emit(step.weight);
    if (step.deeper_weight) {
      path.push_back(frames.index_of(marker));
      emit(step.deeper_weight);
    }
  }, cuts);
}

std::string thread_title(const ReportThread& t) {
  return (t.name ? *t.name : std::string("thread")) + " (tid " + std::to_string(t.os_tid) + ")";
}

}  // namespace

std::string report_to_speedscope(const Report& report, const std::string& title, StackCuts* cuts,
                                 const StackLimits& limits) {
  const ReportFrame* marker = intern_frame(kDeeperFrames, "", "marker");
  Frames frames;
  StackCuts counted;
  size_t stack_bytes = 0;
  std::string profiles;
  const bool evented = report.mode == "shadow";
  // A sampled profile of the samples taken on a CPU: what the thread's CPU time went to.
  auto cpu_profile = [&](const ReportThread& thread) {
    profiles += ",{\"type\":\"sampled\",\"name\":";
    append_json_string(profiles, thread_title(thread) + " on CPU");
    profiles += ",\"unit\":\"none\",\"startValue\":0,\"endValue\":";
    std::string samples, weights;
    sampled_stacks(thread, limits, frames, marker, true, samples, weights, stack_bytes, counted);
    append_u64(profiles, thread_cpu_samples(thread));
    profiles += ",\"samples\":[" + samples + "],\"weights\":[" + weights + "]}";
  };
  for (size_t t = 0; t < report.threads.size(); ++t) {
    const ReportThread& thread = report.threads[t];
    if (t) profiles += ',';
    profiles += "{\"type\":";
    profiles += evented ? "\"evented\"" : "\"sampled\"";
    profiles += ",\"name\":";
    append_json_string(profiles, thread_title(thread));
    profiles += evented ? ",\"unit\":\"nanoseconds\"" : ",\"unit\":\"none\"";
    profiles += ",\"startValue\":0,\"endValue\":";
    if (evented) {
      std::string events;
      bool first = true;
      uint64_t at = 0;
      for (const auto& root : thread.roots) {
        if (root.total_ns.value_or(0) == 0) continue;
        lay_out(root, at, root.total_ns.value_or(0), frames, events, first);
        at += root.total_ns.value_or(0);
      }
      append_u64(profiles, at);
      profiles += ",\"events\":[" + events + "]}";
    } else {
      std::string samples, weights;
      sampled_stacks(thread, limits, frames, marker, false, samples, weights, stack_bytes, counted);
      append_u64(profiles, thread_samples(thread));
      profiles += ",\"samples\":[" + samples + "],\"weights\":[" + weights + "]}";
    }
    if (thread_cpu_samples(thread) > 0) cpu_profile(thread);
  }
  std::string out = "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"exporter\":\"umbra\",";
  out += "\"name\":";
  append_json_string(out, title);
  out += ",\"activeProfileIndex\":0,\"shared\":{";
  append_frames(out, frames);
  out += "},\"profiles\":[" + profiles + "]}\n";
  if (cuts) *cuts = counted;
  return out;
}

}  // namespace umbra
