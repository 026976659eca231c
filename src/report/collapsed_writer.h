// Brendan Gregg's folded stacks: one line per distinct stack, "root;...;leaf N". N is the weight of the stack's own
// node: its self samples (the default), or in shadow mode its exact self time in ns or its calls.
#pragma once

#include <string>

#include "report/report.h"

namespace umbra {

enum class CollapsedWeight { kSamples, kSelfNs, kCalls };

struct CollapsedOptions {
  CollapsedWeight weight = CollapsedWeight::kSamples;
  bool thread_frame = false;  // the thread ("name" or "tid N") as the first frame of every stack
};

std::string report_to_collapsed(const Report& report, const CollapsedOptions& options);

}  // namespace umbra
