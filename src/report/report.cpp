#include "report/report.h"

#include "util/join.h"

namespace umbra {
namespace {

uint64_t sum_calls(const ReportNode& node) {
  uint64_t total = node.calls.value_or(0);
  for (const auto& child : node.children) total += sum_calls(child);
  return total;
}

}  // namespace

const char* runtime_frames_name(RuntimeFrames frames) { return frames == RuntimeFrames::kKeep ? "keep" : "fold"; }

std::optional<RuntimeFrames> runtime_frames_named(std::string_view name) {
  if (name == "fold") return RuntimeFrames::kFold;
  if (name == "keep") return RuntimeFrames::kKeep;
  return std::nullopt;
}

uint64_t thread_total_ns(const ReportThread& thread) {
  uint64_t total = 0;
  for (const auto& root : thread.roots) total += root.total_ns.value_or(0);
  return total;
}

uint64_t thread_calls(const ReportThread& thread) {
  if (thread.calls) return *thread.calls;
  uint64_t total = 0;
  for (const auto& root : thread.roots) total += sum_calls(root);
  return total;
}

namespace {
uint64_t sum_counts(const std::optional<NamedCounts>& counts) {
  uint64_t total = 0;
  if (counts)
    for (const auto& c : *counts) total += c.count;
  return total;
}
}  // namespace

uint64_t samples_outside_managed_code(const ReportStats& stats) {
  if (!stats.sampler || !stats.sampler->drops) return 0;
  for (const auto& c : *stats.sampler->drops)
    if (c.name == kOutsideManagedCode) return c.count;
  return 0;
}

uint64_t total_drops(const Report& report) {
  const auto& sampler = report.stats.sampler;
  return sum_counts(report.stats.drops) + (sampler ? sum_counts(sampler->drops) : 0) -
         samples_outside_managed_code(report.stats);
}

std::string summary_line(const Report& report, const std::vector<std::string>& files) {
  uint64_t calls = 0, samples = 0, cpu_samples = 0;
  for (const auto& t : report.threads) {
    calls += thread_calls(t);
    samples += thread_samples(t);
    cpu_samples += thread_cpu_samples(t);
  }
  return report.mode + " profile: " + std::to_string(report.threads.size()) + " threads, " + std::to_string(calls) +
         " calls, " + std::to_string(samples) + " samples (" + std::to_string(cpu_samples) + " on CPU), " +
         std::to_string(total_drops(report)) +
         " not captured (stats.drops); wrote " + (files.empty() ? "nothing" : join(files));
}

uint64_t thread_samples(const ReportThread& thread) {
  uint64_t total = 0;
  for (const auto& root : thread.roots) total += root.samples;
  return total;
}

uint64_t thread_cpu_samples(const ReportThread& thread) {
  uint64_t total = 0;
  for (const auto& root : thread.roots) total += root.cpu_samples;
  return total;
}

}  // namespace umbra
