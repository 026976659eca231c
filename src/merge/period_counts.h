// What a periodic report subtracts. Trees only grow and their counters only rise while a program runs, so a
// period's report is the trees now less the trees at the previous period's end: every count a period's build reads
// is kept here, per live node (a CallNode, a node of a SampledTree: neither moves nor is freed while the process
// runs), and the next build subtracts it. Keyed by the live nodes rather than by the report's paths, a report whose
// shape changes between periods (a native segment found and spliced in later) still adds up.
//
// Contract: used by one report build at a time (the session's report mutex). Memory: about 100 bytes for each node
// of the shadow trees, 16 for each sampled node.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "hooks/call_node.h"
#include "snapshot/sampled_tree.h"

namespace umbra {

struct ShadowCounts {
  uint64_t calls = 0, ticks = 0, self_samples = 0, self_cpu_samples = 0, tail_entries = 0;
};
struct SampledCounts {
  uint64_t self_samples = 0, self_cpu_samples = 0;
};
// A thread's own numbers (its CPU time, sampled mode's managed and native samples); absent ones stay absent.
struct ThreadCounts {
  std::optional<uint64_t> cpu_ns, managed_samples, native_samples;
};

class PeriodCounts {
 public:
  // How a build reads counts through a lens:
  // kPeriod: what came since the previous kPeriod read (less what it read; a time read lower than before counts 0),
  //          and the counts read now are kept for the next one.
  // kLastRead: the counts the last kPeriod read kept, as they were: the whole run up to that period's end. Nodes
  //          and threads it did not see (made since) are left out.
  enum class Use { kPeriod, kLastRead };

  class Lens {
   public:
    Lens(PeriodCounts& counts, Use use) : counts_(counts), use_(use) {}
    bool includes(const CallNode* node) const;
    bool includes(const SampledTree* tree, uint32_t index) const;
    bool includes_thread(const void* thread) const;
    // The counts to report for a node whose counts are `now`.
    ShadowCounts shadow(const CallNode* node, const ShadowCounts& now);
    SampledCounts sampled(const SampledTree* tree, uint32_t index, const SampledCounts& now);
    ThreadCounts thread(const void* thread, const ThreadCounts& now);

   private:
    PeriodCounts& counts_;
    const Use use_;
  };

 private:
  std::unordered_map<const CallNode*, ShadowCounts> shadow_;
  std::unordered_map<const SampledTree*, std::vector<SampledCounts>> sampled_;
  std::unordered_map<const void*, ThreadCounts> threads_;  // keyed by the thread's shadow or record
};

}  // namespace umbra
