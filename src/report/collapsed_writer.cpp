#include "report/collapsed_writer.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "report/display_text.h"

namespace umbra {
namespace {

// Readers split a line into frames at ';' and take the count after its last space; flamegraph.pl and its ports also
// take a number before that one as the first count of a differential graph, some after trimming spaces. So a frame
// holds no ';', nothing that ends a line (display_text), and no number after a space at its end: that space
// becomes '_' ("Retry 3" is written "Retry_3").
std::string frame_text(const std::string& name) {
  std::string out = display_text(name);
  std::replace(out.begin(), out.end(), ';', '_');
  size_t end = out.find_last_not_of(' ');
  if (end == std::string::npos) return out;
  size_t number = out.find_last_not_of("0123456789.", end) + 1;  // 0 when the frame is all number
  if (number > 0 && number <= end && out[number - 1] == ' ') out[number - 1] = '_';
  return out;
}

uint64_t weight_of(const ReportNode& node, CollapsedWeight weight) {
  switch (weight) {
    case CollapsedWeight::kSamples: return node.self_samples;
    case CollapsedWeight::kSelfNs: return node.self_ns.value_or(0);
    case CollapsedWeight::kCalls: return node.calls.value_or(0);
  }
  return 0;
}

void fold(const ReportNode& node, std::string& prefix, CollapsedWeight weight, std::string& out) {
  size_t mark = prefix.size();
  if (!prefix.empty()) prefix += ';';
  prefix += frame_text(node.name);
  if (uint64_t w = weight_of(node, weight)) {
    char count[32];
    std::snprintf(count, sizeof count, " %" PRIu64 "\n", w);
    out += prefix;
    out += count;
  }
  for (const auto& child : node.children) fold(child, prefix, weight, out);
  prefix.resize(mark);
}

}  // namespace

std::string report_to_collapsed(const Report& report, const CollapsedOptions& options) {
  std::string out;
  for (const ReportThread& thread : report.threads) {
    std::string prefix;
    if (options.thread_frame)
      prefix = thread.name ? frame_text(*thread.name) : "tid " + std::to_string(thread.os_tid);
    for (const auto& root : thread.roots) fold(root, prefix, options.weight, out);
  }
  return out;
}

}  // namespace umbra
