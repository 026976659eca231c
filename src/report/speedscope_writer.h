// speedscope's file format (https://www.speedscope.app/file-format-schema.json). Shadow mode: one "evented" profile
// per thread in nanoseconds, the exact tree laid out in time (each node open for its total time, its children one
// after another inside it). Sampled mode: one "sampled" profile per thread, one stack per distinct leaf, weighted by
// its self samples, bounded as collapsed stacks are (report/bounded_stacks.h; what was cut goes to `cuts`). In both
// modes, each thread with samples taken on a CPU has a second, sampled profile of those alone ("... on CPU"): the
// CPU view beside the wall-time one, chosen in speedscope's profile list.
// Open it with `npx speedscope FILE`.
#pragma once

#include <string>

#include "report/bounded_stacks.h"
#include "report/report.h"

namespace umbra {

std::string report_to_speedscope(const Report& report, const std::string& title, StackCuts* cuts = nullptr,
                                 const StackLimits& limits = {});

}  // namespace umbra
