// Writes a Report as JSON (schema umbra-report/4: each method named once in "frames", each node an array of numbers
// without its trailing zeros). Every node is written; nothing is folded.
#pragma once

#include <string>

#include "report/report.h"
#include "util/shared_work.h"

namespace umbra {

// Which frames "frames" lists. kUsed: those the nodes use, numbered in the order the nodes meet them, which takes a
// walk of every node before the first is written. kEveryInterned: every frame the process has interned, at its id,
// and no walk: for the report at the end of a run, whose nodes use nearly all of them, on the process's way out,
// where that walk of millions of nodes took a fifth of a second.
enum class FrameListing { kUsed, kEveryInterned };

// With `work`, its helpers write parts of large trees beside the caller (the same text).
std::string report_to_json(const Report& report, SharedWork* work = nullptr,
                           FrameListing listing = FrameListing::kUsed);

}  // namespace umbra
