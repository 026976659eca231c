#include "report/collapsed_writer.h"

#include <algorithm>
#include <vector>

#include "report/display_text.h"

namespace umbra {
namespace {

// Readers split a line into frames at ';' and take the count after its last space: a frame holds no ';' and
// nothing that ends a line (display_text).
std::string frame_text(const std::string& name) {
  std::string out = display_text(name);
  std::replace(out.begin(), out.end(), ';', '_');
  return out;
}

// flamegraph.pl and its ports also take a number before the count as the first count of a differential graph, some
// after trimming spaces. So a node's frame, which may end a line, never ends in a space and a number: that space
// becomes '_' ("Retry 3" is written "Retry_3", in every stack alike). The thread's frame never ends a line.
std::string node_frame_text(const std::string& name) {
  std::string out = frame_text(name);
  size_t end = out.find_last_not_of(' ');
  if (end == std::string::npos) return out;
  size_t number = out.find_last_not_of("0123456789.", end) + 1;  // 0 when the frame is all number
  if (number > 0 && number <= end && out[number - 1] == ' ') out[number - 1] = '_';
  return out;
}

uint64_t weight_of(const ReportNode& node, CollapsedWeight weight) {
  switch (weight) {
    case CollapsedWeight::kSamples: return node.self_samples;
    case CollapsedWeight::kCpuSamples: return node.self_cpu_samples;
    case CollapsedWeight::kSelfNs: return node.self_ns.value_or(0);
    case CollapsedWeight::kCalls: return node.calls.value_or(0);
  }
  return 0;
}

}  // namespace

std::string report_to_collapsed(const Report& report, const CollapsedOptions& options, StackCuts* cuts,
                                const StackLimits& limits) {
  StackCuts counted;
  std::string out;
  std::string path;          // the frames of the node visited, then " N\n"
  std::vector<size_t> ends;  // ends[d]: where frame d ends in `path`
  auto emit = [&](uint64_t weight) {
    size_t frames = path.size();
    path += ' ' + std::to_string(weight) + '\n';
    if (out.size() + path.size() <= limits.max_bytes) out += path;
    else ++counted.left_out;
    path.resize(frames);
  };
  for (const ReportThread& thread : report.threads) {
    std::string first;
    if (options.thread_frame) first = thread.name ? frame_text(*thread.name) : "tid " + std::to_string(thread.os_tid);
    auto weight = [&](const ReportNode& node) { return weight_of(node, options.weight); };
    walk_bounded_stacks(thread.roots, limits.max_frames, weight, [&](const StackStep& step) {
      if (step.depth == 0) path = first;
      else path.resize(ends[step.depth - 1]);
      if (step.depth > 0 || options.thread_frame) path += ';';
      path += node_frame_text(step.node.name());
      ends.resize(step.depth);
      ends.push_back(path.size());
      if (step.weight) emit(step.weight);
      if (step.deeper_weight) {
        path += ';';
        path += kDeeperFrames;
        emit(step.deeper_weight);
      }
    }, counted);
  }
  if (cuts) *cuts = counted;
  return out;
}

}  // namespace umbra
