// speedscope's file format (https://www.speedscope.app/file-format-schema.json). Shadow mode: one "evented" profile
// per thread in nanoseconds, the exact tree laid out in time (each node open for its total time, its children one
// after another inside it). Sampled mode: one "sampled" profile per thread, one stack per distinct leaf, weighted by
// its self samples, bounded as collapsed stacks are (report/bounded_stacks.h; what was cut goes to `cuts`).
// Open it with `npx speedscope FILE`.
#pragma once

#include <string>

#include "report/bounded_stacks.h"
#include "report/report.h"

namespace umbra {

std::string report_to_speedscope(const Report& report, const std::string& title, StackCuts* cuts = nullptr,
                                 const StackLimits& limits = {});

}  // namespace umbra
