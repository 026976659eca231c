#include "report/collapsed_writer.h"

#include <cinttypes>
#include <cstdio>

namespace umbra {
namespace {

// Folded-stack lines split on ';' and end at a space before the count: frames must contain neither.
std::string frame_text(const ReportNode& node) {
  std::string out = node.name;
  for (char& c : out)
    if (c == ';' || c == '\n' || c == '\r') c = '_';
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
  prefix += frame_text(node);
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
      prefix = thread.name ? frame_text(ReportNode{*thread.name}) : "tid " + std::to_string(thread.os_tid);
    for (const auto& root : thread.roots) fold(root, prefix, options.weight, out);
  }
  return out;
}

}  // namespace umbra
