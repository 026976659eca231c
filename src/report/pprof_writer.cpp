#include "report/pprof_writer.h"

#include <algorithm>
#include <array>
#include <limits>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "report/frame_table.h"
#include "report/gzip_stream.h"
#include "report/protobuf_wire.h"

namespace umbra {
namespace {

using protobuf::append_bytes_field;
using protobuf::append_packed_field;
using protobuf::append_varint_field;

// profile.proto's field numbers, message by message.
struct ProfileField {
  static constexpr uint32_t kSampleType = 1, kSample = 2, kMapping = 3, kLocation = 4, kFunction = 5,
                            kStringTable = 6, kDurationNanos = 10, kPeriodType = 11, kPeriod = 12, kComment = 13,
                            kDefaultSampleType = 14;
};
struct ValueTypeField {
  static constexpr uint32_t kType = 1, kUnit = 2;
};
struct SampleField {
  static constexpr uint32_t kLocationId = 1, kValue = 2, kLabel = 3;
};
struct LabelField {
  static constexpr uint32_t kKey = 1, kStr = 2, kNum = 3;
};
struct MappingField {
  static constexpr uint32_t kId = 1, kFilename = 5, kHasFunctions = 7;
};
struct LocationField {
  static constexpr uint32_t kId = 1, kMappingId = 2, kLine = 4;
};
struct LineField {
  static constexpr uint32_t kFunctionId = 1;
};
struct FunctionField {
  static constexpr uint32_t kId = 1, kName = 2, kSystemName = 3, kFilename = 4;
};

// Compressed in pieces of about this size.
constexpr size_t kFlushBytes = size_t(1) << 20;

// pprof's strings are indices into one table whose first entry is "".
class StringTable {
 public:
  StringTable() { index(""); }
  uint64_t index(std::string_view text) {
    auto [entry, added] = indices_.try_emplace(std::string(text), strings_.size());
    if (added) strings_.push_back(&entry->first);
    return entry->second;
  }
  void append_to(std::string& out) const {
    for (const std::string* s : strings_) append_bytes_field(out, ProfileField::kStringTable, *s);
  }

 private:
  std::unordered_map<std::string, uint64_t> indices_;
  std::vector<const std::string*> strings_;  // in index order; the map's keys never move
};

// What a node measured on its own, as pprof's values: self samples, of those the ones on a CPU, calls, self time.
struct Values {
  uint64_t samples = 0, cpu_samples = 0, calls = 0, time_ns = 0;
  bool any() const { return samples || calls || time_ns; }
};

Values values_of(const ReportNode& node) {
  return {node.self_samples, node.self_cpu_samples, node.calls.value_or(0), node.self_ns.value_or(0)};
}

// pprof's numbers are int64; counts read from a file can be anything, and are held at its largest.
constexpr uint64_t kMaxInt64 = std::numeric_limits<int64_t>::max();
uint64_t as_int64(uint64_t v) { return std::min(v, kMaxInt64); }
uint64_t saturating_add(uint64_t a, uint64_t b) { return std::min(kMaxInt64, as_int64(a) + as_int64(b)); }

// Everything under `node`, summed: the sample of a stack merged under kDeeperFrames. Iterative: trees are as deep
// as the deepest call stack.
Values values_under(const ReportNode& node) {
  Values total;
  std::vector<const ReportNode*> pending;
  for (const auto& child : node.children) pending.push_back(&child);
  while (!pending.empty()) {
    const ReportNode* n = pending.back();
    pending.pop_back();
    Values v = values_of(*n);
    total = {saturating_add(total.samples, v.samples), saturating_add(total.cpu_samples, v.cpu_samples),
             saturating_add(total.calls, v.calls), saturating_add(total.time_ns, v.time_ns)};
    for (const auto& child : n->children) pending.push_back(&child);
  }
  return total;
}

// Which of CPU state, calls and times the report measured: sample types for those only. A thread whose CPU time
// was read had its samples told apart, on a CPU or not, even if none was.
struct Measured {
  bool cpu = false, calls = false, times = false;
};

Measured measured_in(const Report& report) {
  Measured measured;
  std::vector<const ReportNode*> pending;
  for (const auto& thread : report.threads) {
    measured.cpu |= thread.cpu_ns.has_value();
    for (const auto& root : thread.roots) pending.push_back(&root);
  }
  while (!pending.empty() && !(measured.cpu && measured.calls && measured.times)) {
    const ReportNode* n = pending.back();
    pending.pop_back();
    measured.cpu |= n->self_cpu_samples != 0;
    measured.calls |= n->calls.has_value();
    measured.times |= n->self_ns.has_value();
    for (const auto& child : n->children) pending.push_back(&child);
  }
  return measured;
}

// Each distinct (name, module, kind) is one function and one location, both with id = index + 1.
struct NameModuleKind {
  std::array<std::string_view, 3> operator()(const ReportFrame& frame) const {
    return {frame.name, frame.module, frame.kind};
  }
};

class PprofWriter {
 public:
  PprofWriter(const Report& report, const StackLimits& limits)
      : report_(report), limits_(limits), measured_(measured_in(report)) {}

  std::string write(StackCuts& cuts) {
    header();
    for (const ReportThread& thread : report_.threads) thread_samples(thread, cuts);
    tables();
    gzip_.write(pending_);
    return gzip_.finish();
  }

 private:
  void value_type(uint32_t field, std::string_view type, std::string_view unit) {
    std::string message;
    append_varint_field(message, ValueTypeField::kType, strings_.index(type));
    append_varint_field(message, ValueTypeField::kUnit, strings_.index(unit));
    append_bytes_field(pending_, field, message);
  }

  void header() {
    value_type(ProfileField::kSampleType, "samples", "count");
    if (measured_.cpu) value_type(ProfileField::kSampleType, "cpu_samples", "count");
    if (measured_.calls) value_type(ProfileField::kSampleType, "calls", "count");
    if (measured_.times) value_type(ProfileField::kSampleType, "time", "nanoseconds");
    append_varint_field(pending_, ProfileField::kDefaultSampleType, strings_.index("samples"));
    if (report_.duration_ns)
      append_varint_field(pending_, ProfileField::kDurationNanos, as_int64(report_.duration_ns));
    // Samples are taken on every thread at each tick, running or not: wall-clock time.
    const auto& sampler = report_.stats.sampler;
    if (sampler && sampler->interval_ms) {
      const uint64_t ms = *sampler->interval_ms;
      value_type(ProfileField::kPeriodType, "wall", "nanoseconds");
      append_varint_field(pending_, ProfileField::kPeriod, ms > kMaxInt64 / 1'000'000 ? kMaxInt64 : ms * 1'000'000);
    }
    std::string comment = "umbra " + (report_.umbra_version.empty() ? "" : report_.umbra_version + " ") + report_.mode +
                          " profile of pid " + std::to_string(report_.pid);
    if (!report_.program.empty()) comment += " (" + report_.program + ")";
    append_varint_field(pending_, ProfileField::kComment, strings_.index(comment));
  }

  // The thread's labels, as they follow the values in each of its samples.
  std::string labels_of(const ReportThread& thread) {
    std::string labels, label;
    if (thread.name) {
      append_varint_field(label, LabelField::kKey, strings_.index("thread"));
      append_varint_field(label, LabelField::kStr, strings_.index(*thread.name));
      append_bytes_field(labels, SampleField::kLabel, label);
      label.clear();
    }
    append_varint_field(label, LabelField::kKey, strings_.index("thread_id"));
    append_varint_field(label, LabelField::kNum, as_int64(thread.os_tid));
    append_bytes_field(labels, SampleField::kLabel, label);
    return labels;
  }

  void thread_samples(const ReportThread& thread, StackCuts& cuts) {
    const std::string labels = labels_of(thread);
    const ReportFrame* deeper = intern_frame(kDeeperFrames, "", "marker");
    // The walk bounds stacks by one weight: a node weighs 1 when it has any value of its own, and the values under a
    // cut are summed here, all of them.
    auto weighted = [](const ReportNode& node) -> uint64_t { return values_of(node).any() ? 1 : 0; };
    walk_bounded_stacks(thread.roots, limits_.max_frames, weighted, [&](const StackStep& step) {
      path_.resize(step.depth);
      path_.push_back(location_id(step.node.frame));
      if (step.weight) sample(values_of(step.node), labels, cuts);
      if (step.deeper_weight) {
        path_.push_back(location_id(deeper));
        sample(values_under(step.node), labels, cuts);
      }
    }, cuts);
  }

  uint64_t location_id(const ReportFrame* frame) { return frames_.index_of(frame) + 1; }

  // One sample: path_ (root first) as pprof's locations (leaf first), the values of the sample types, the labels.
  void sample(const Values& v, const std::string& labels, StackCuts& cuts) {
    leaf_first_.assign(path_.rbegin(), path_.rend());
    values_.assign({as_int64(v.samples)});
    if (measured_.cpu) values_.push_back(as_int64(v.cpu_samples));
    if (measured_.calls) values_.push_back(as_int64(v.calls));
    if (measured_.times) values_.push_back(as_int64(v.time_ns));
    sample_.clear();
    append_packed_field(sample_, SampleField::kLocationId, leaf_first_);
    append_packed_field(sample_, SampleField::kValue, values_);
    sample_ += labels;
    if (sample_bytes_ + sample_.size() > limits_.max_bytes) {
      ++cuts.left_out;
      return;
    }
    sample_bytes_ += sample_.size();
    append_bytes_field(pending_, ProfileField::kSample, sample_);
    if (pending_.size() >= kFlushBytes) {
      gzip_.write(pending_);
      pending_.clear();
    }
  }

  // Functions, locations and mappings of the frames the samples used, then the strings they all refer to.
  void tables() {
    std::unordered_map<std::string_view, uint64_t> mapping_ids;  // native module -> mapping id
    // pprof names the profile after its first mapping that is not a shared library ("File: App.dll"): the program
    // is mapping 1, also where its executable has native frames of its own.
    if (!report_.program.empty()) {
      mapping_ids.emplace(report_.program, 1);
      mapping_message(1, report_.program);
    }
    std::string message, line;
    const auto& frames = frames_.frames();
    for (size_t i = 0; i < frames.size(); ++i) {
      const ReportFrame& frame = *frames[i];
      const uint64_t id = i + 1;
      message.clear();
      append_varint_field(message, FunctionField::kId, id);
      append_varint_field(message, FunctionField::kName, strings_.index(frame.name));
      append_varint_field(message, FunctionField::kSystemName, strings_.index(frame.name));
      if (frame.kind == "managed" && !frame.module.empty())
        append_varint_field(message, FunctionField::kFilename, strings_.index(frame.module));
      append_bytes_field(pending_, ProfileField::kFunction, message);

      message.clear();
      append_varint_field(message, LocationField::kId, id);
      if (frame.kind == "native" && !frame.module.empty()) {
        auto [mapping, added] = mapping_ids.try_emplace(frame.module, mapping_ids.size() + 1);
        if (added) mapping_message(mapping->second, frame.module);
        append_varint_field(message, LocationField::kMappingId, mapping->second);
      }
      line.clear();
      append_varint_field(line, LineField::kFunctionId, id);
      append_bytes_field(message, LocationField::kLine, line);
      append_bytes_field(pending_, ProfileField::kLocation, message);
    }
    strings_.append_to(pending_);
  }

  // A module's mapping. Its addresses are unknown (frames are merged by function), and its functions are named:
  // pprof must not look for the file to name them again.
  void mapping_message(uint64_t id, std::string_view module) {
    std::string message;
    append_varint_field(message, MappingField::kId, id);
    append_varint_field(message, MappingField::kFilename, strings_.index(module));
    append_varint_field(message, MappingField::kHasFunctions, 1);
    append_bytes_field(pending_, ProfileField::kMapping, message);
  }

  const Report& report_;
  const StackLimits limits_;
  const Measured measured_;
  StringTable strings_;
  FrameTable<NameModuleKind> frames_;
  // Fastest compression, as Go's own runtime/pprof writes: the file is written while the process ends, and level 6
  // takes about 4x as long for files about 10% smaller.
  GzipStream gzip_{Z_BEST_SPEED};
  std::string pending_;                    // encoded, not yet compressed
  std::vector<uint64_t> path_;             // location ids of the node visited and its callers, root first
  std::vector<uint64_t> leaf_first_, values_;
  std::string sample_;
  size_t sample_bytes_ = 0;                // of all samples so far, against limits_.max_bytes
};

}  // namespace

std::string report_to_pprof(const Report& report, StackCuts* cuts, const StackLimits& limits) {
  StackCuts counted;
  std::string out = PprofWriter(report, limits).write(counted);
  if (cuts) *cuts = counted;
  return out;
}

}  // namespace umbra
