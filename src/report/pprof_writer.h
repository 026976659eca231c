// pprof's format (github.com/google/pprof, proto/profile.proto), gzipped: what `go tool pprof` reads, and what
// continuous-profiling backends (Grafana Pyroscope, Parca, Datadog) take in.
//
// Sample types: samples/count (wall clock), cpu_samples/count (of those, taken on a CPU) where the report told them
// apart, then, where the report measured them (shadow mode), calls/count and time/nanoseconds.
// Each node with any of these is one sample, its stack the node's path and its values the node's own: self samples,
// self CPU samples, calls, self time. So pprof's "flat" is exactly a method's own (calls, self time, self samples) and its "cum" its
// samples and time with everything under it. Each frame is one function and one location; a native frame's
// location lies in a mapping of its module, after the program's own mapping, which names the profile. Each sample is labelled with its thread: "thread" (the name, if it has
// one) and "thread_id" (the OS thread id). The period is the sampling interval, in wall-clock nanoseconds.
// Stacks are bounded as collapsed stacks are (report/bounded_stacks.h); what was cut goes to `cuts`. Samples are
// compressed as they are encoded: the uncompressed profile is never held whole.
#pragma once

#include <string>

#include "report/bounded_stacks.h"
#include "report/report.h"

namespace umbra {

std::string report_to_pprof(const Report& report, StackCuts* cuts = nullptr, const StackLimits& limits = {});

}  // namespace umbra
