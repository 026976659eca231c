// The report as written to <prefix>.json (schema umbra-report/4) and <prefix>.txt.
// Field meanings follow the JSON: calls/total_ns/self_ns are exact where measured (shadow mode), absent otherwise;
// samples/self_samples come from sampling.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/report_frame.h"
#include "report/report_stats.h"

namespace umbra {

inline constexpr const char* kReportSchema = "umbra-report/4";
// The schemas before, still read: /3, whose nodes are flat numbers, every field of every node; /2, the same
// without the CPU samples (kNodeFieldsV2); and /1, with each node an object that names its method.
inline constexpr const char* kReportSchemaV3 = "umbra-report/3";
inline constexpr const char* kReportSchemaV2 = "umbra-report/2";
inline constexpr const char* kReportSchemaV1 = "umbra-report/1";
// In /4 each node is an array of these numbers, in this order, in its thread's "nodes" (pre-order), without the
// zeros at its end (most nodes of a shadow tree are a frame, its children and its calls): "frame" indexes "frames",
// "children" counts the nodes that follow as its direct children; calls, total_ns and self_ns are null where not
// measured; a field past the end of a node's array is 0.
inline constexpr std::array<const char*, 10> kNodeFields = {
    "frame",   "children",     "calls",       "samples",     "self_samples",
    "total_ns", "self_ns",     "tail_entries", "cpu_samples", "self_cpu_samples"};
// /2's: the first eight of /3's.
inline constexpr size_t kNodeFieldsV2 = 8;
// The fields every node of /4 writes, zero or not.
inline constexpr size_t kNodeFieldsRequired = 2;

// How a schema writes its nodes: `width` fields, each node an array of its own (/4) or all of a thread's nodes'
// numbers in one flat array (/3, /2). Width 0: /1 or no umbra report.
struct NodeLayout {
  size_t width = 0;
  bool arrays = false;
};
inline NodeLayout node_layout_of(std::string_view schema) {
  if (schema == kReportSchema) return {kNodeFields.size(), true};
  if (schema == kReportSchemaV3) return {kNodeFields.size(), false};
  if (schema == kReportSchemaV2) return {kNodeFieldsV2, false};
  return {};
}

// How the formats people read (text, collapsed, speedscope, HTML) show the runtime's own native frames: folded,
// a run of them as one frame (report/runtime_folding.h), or kept, every one. The JSON report keeps every frame
// either way and says which the run's other files showed, so that `umbra report` shows the same by default.
enum class RuntimeFrames { kFold, kKeep };
const char* runtime_frames_name(RuntimeFrames frames);  // "fold", "keep"
std::optional<RuntimeFrames> runtime_frames_named(std::string_view name);

struct ReportNode {
  const ReportFrame* frame = unnamed_frame();
  std::optional<uint64_t> calls;
  std::optional<uint64_t> total_ns;
  std::optional<uint64_t> self_ns;
  uint64_t samples = 0;
  uint64_t self_samples = 0;
  // Of those, the samples taken while the thread was on a CPU (running or ready to run), not waiting.
  uint64_t cpu_samples = 0;
  uint64_t self_cpu_samples = 0;
  uint64_t tail_entries = 0;
  std::vector<ReportNode> children;

  const std::string& name() const { return frame->name; }
  const std::string& module() const { return frame->module; }
  const std::string& kind() const { return frame->kind; }
};

struct ReportThread {
  uint64_t os_tid = 0;
  std::optional<uint64_t> managed_id;
  std::optional<std::string> name;
  bool exited = false;
  std::optional<uint64_t> managed_samples;  // sampled: samples taken while the thread ran managed code
  std::optional<uint64_t> native_samples;   // sampled: ... while it ran native code (a captured native top)
  std::optional<uint64_t> cpu_ns;  // the CPU time the thread had used when it was last read (absent: not read)
  // Sampled mode, walker by signal: its stacks by signal kept differing from the runtime's walks, so its samples
  // since come from snapshot walks (sampler/signal_sampling.h).
  bool sampled_by_snapshot = false;
  // Sampled mode, walker by signal: this thread's stacks by signal checked against the runtime's walks, their
  // managed frames and those that agreed (absent: never checked).
  std::optional<uint64_t> walks_checked, walk_frames_checked, walk_frames_agreed;
  std::vector<ReportNode> roots;
  // Shadow mode: the sum of every node's calls, as the tree builder counted them while it made `roots` (a walk of
  // millions of nodes saved). Absent: thread_calls() sums the nodes. Whoever changes the calls in `roots` resets it.
  std::optional<uint64_t> calls;
};

struct Report {
  std::string mode = "shadow";
  int64_t pid = 0;
  // Which process this was, for a run that profiled many (`dotnet build` starts MSBuild nodes and the compiler):
  // the managed entry assembly (MSBuild.dll, csc.dll, testhost.dll) or the executable, and the arguments the
  // process was started with. Empty where the report does not say (one written before they were recorded).
  std::string program;
  std::vector<std::string> command_line;
  std::string runtime;
  std::string umbra_version;  // the umbra that profiled the program; empty where the report does not say
  RuntimeFrames runtime_frames = RuntimeFrames::kFold;
  uint64_t duration_ns = 0;
  std::vector<ReportThread> threads;
  ReportStats stats;
};

// Totals of a thread: the sum over its roots.
uint64_t thread_total_ns(const ReportThread& thread);
uint64_t thread_calls(const ReportThread& thread);
uint64_t thread_samples(const ReportThread& thread);
uint64_t thread_cpu_samples(const ReportThread& thread);
// The sampler's count of samples of threads with no managed frame on their stack (the runtime's own threads, a
// thread before its first managed call): outside the profile, not lost from it.
inline constexpr const char* kOutsideManagedCode = "no_frames";
uint64_t samples_outside_managed_code(const ReportStats& stats);
// Everything counted as not captured: stats.drops and stats.sampler.drops, summed, but for the samples outside
// managed code.
uint64_t total_drops(const Report& report);
// The line printed at exit: mode, threads, calls, samples, drops, and the files written.
std::string summary_line(const Report& report, const std::vector<std::string>& files);

}  // namespace umbra
