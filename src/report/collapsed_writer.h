// Brendan Gregg's folded stacks: one line per distinct stack, "root;...;leaf N". N is the weight of the stack's own
// node: its self samples (the default: wall time), those taken on a CPU (CPU time), or in shadow mode its exact self
// time in ns or its calls. Stacks are bounded
// (report/bounded_stacks.h); what was cut is counted in `cuts`.
#pragma once

#include <string>

#include "report/bounded_stacks.h"
#include "report/report.h"

namespace umbra {

enum class CollapsedWeight { kSamples, kCpuSamples, kSelfNs, kCalls };

struct CollapsedOptions {
  CollapsedWeight weight = CollapsedWeight::kSamples;
  bool thread_frame = false;  // the thread ("name" or "tid N") as the first frame of every stack
};

std::string report_to_collapsed(const Report& report, const CollapsedOptions& options, StackCuts* cuts = nullptr,
                                const StackLimits& limits = {});

}  // namespace umbra
