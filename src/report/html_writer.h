// A self-contained HTML page (no network, no CDN): per thread and for all threads, a flame graph on a canvas and a
// collapsible call tree, search that highlights matching frames, and details on hover (calls, total and self time,
// samples and those on a CPU, native or managed, tail-call entries). A toggle weighs everything by wall time or by
// CPU; the thread list shows each thread's share of the CPU samples and can hide idle threads. The page is
// src/report/html_report.html, embedded at build time.
#pragma once

#include <string>

#include "report/report.h"

namespace umbra {

std::string report_to_html(const Report& report);

}  // namespace umbra
