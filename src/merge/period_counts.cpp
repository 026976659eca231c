#include "merge/period_counts.h"

namespace umbra {
namespace {

uint64_t since(uint64_t now, uint64_t before) { return now > before ? now - before : 0; }

std::optional<uint64_t> since(const std::optional<uint64_t>& now, const std::optional<uint64_t>& before) {
  if (!now) return std::nullopt;
  return since(*now, before.value_or(0));
}

}  // namespace

bool PeriodCounts::Lens::includes(const CallNode* node) const {
  return use_ == Use::kPeriod || counts_.shadow_.count(node);
}

bool PeriodCounts::Lens::includes(const SampledTree* tree, uint32_t index) const {
  if (use_ == Use::kPeriod) return true;
  auto it = counts_.sampled_.find(tree);
  return it != counts_.sampled_.end() && index < it->second.size();
}

bool PeriodCounts::Lens::includes_thread(const void* thread) const {
  return use_ == Use::kPeriod || counts_.threads_.count(thread);
}

ShadowCounts PeriodCounts::Lens::shadow(const CallNode* node, const ShadowCounts& now) {
  ShadowCounts& kept = counts_.shadow_[node];
  if (use_ == Use::kLastRead) return kept;
  ShadowCounts period{since(now.calls, kept.calls), since(now.ticks, kept.ticks),
                      since(now.self_samples, kept.self_samples), since(now.self_cpu_samples, kept.self_cpu_samples),
                      since(now.tail_entries, kept.tail_entries)};
  kept = now;
  return period;
}

SampledCounts PeriodCounts::Lens::sampled(const SampledTree* tree, uint32_t index, const SampledCounts& now) {
  std::vector<SampledCounts>& kept = counts_.sampled_[tree];
  if (kept.size() <= index) kept.resize(tree->size() > index ? tree->size() : index + 1);
  if (use_ == Use::kLastRead) return kept[index];
  SampledCounts period{since(now.self_samples, kept[index].self_samples),
                       since(now.self_cpu_samples, kept[index].self_cpu_samples)};
  kept[index] = now;
  return period;
}

ThreadCounts PeriodCounts::Lens::thread(const void* thread, const ThreadCounts& now) {
  ThreadCounts& kept = counts_.threads_[thread];
  if (use_ == Use::kLastRead) return kept;
  ThreadCounts period{since(now.cpu_ns, kept.cpu_ns), since(now.managed_samples, kept.managed_samples),
                      since(now.native_samples, kept.native_samples)};
  kept = now;
  return period;
}

}  // namespace umbra
