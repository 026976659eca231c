#include "report/report.h"

namespace umbra {
namespace {

uint64_t sum_calls(const ReportNode& node) {
  uint64_t total = node.calls.value_or(0);
  for (const auto& child : node.children) total += sum_calls(child);
  return total;
}

}  // namespace

uint64_t thread_total_ns(const ReportThread& thread) {
  uint64_t total = 0;
  for (const auto& root : thread.roots) total += root.total_ns.value_or(0);
  return total;
}

uint64_t thread_calls(const ReportThread& thread) {
  uint64_t total = 0;
  for (const auto& root : thread.roots) total += sum_calls(root);
  return total;
}

uint64_t thread_samples(const ReportThread& thread) {
  uint64_t total = 0;
  for (const auto& root : thread.roots) total += root.samples;
  return total;
}

}  // namespace umbra
