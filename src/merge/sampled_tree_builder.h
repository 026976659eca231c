// Turns a thread's SampledTree (FunctionIDs and native IPs) into report nodes: managed frames named through
// FunctionNames, native frames through NativeSymbols ("kind":"native" with their module). Siblings that resolve
// to the same function are merged. Counts are samples only (calls and times are not measured by sampling).
#pragma once

#include <functional>
#include <vector>

#include "merge/period_counts.h"
#include "names/function_names.h"
#include "report/report.h"
#include "snapshot/native_symbols.h"
#include "snapshot/sampled_tree.h"

namespace umbra {

class FrameNamer;
// One node of `tree` and everything under it, named by `names`; with `lens`, counts are read through it
// (merge/period_counts.h) and the nodes it leaves out are not converted. Every node comes finished
// (report/report_tree.h: finish_node).
ReportNode convert_sampled_node(const SampledTree& tree, uint32_t index, FrameNamer& names,
                                PeriodCounts::Lens* lens = nullptr);

std::vector<ReportNode> build_sampled_roots(const SampledTree& tree,
                                            const std::function<FunctionName(clr::FunctionID)>& managed,
                                            const NativeLookup& native, PeriodCounts::Lens* lens = nullptr);

}  // namespace umbra
