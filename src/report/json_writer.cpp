#include "report/json_writer.h"

#include <array>
#include <charconv>
#include <cstring>
#include <deque>
#include <iterator>
#include <list>
#include <optional>
#include <string>
#include <vector>

#include "report/frame_table.h"
#include "util/decimal.h"
#include "report/report_stats_json.h"

namespace umbra {
namespace {

void append_uint(std::string& out, uint64_t v) { append_decimal(out, v); }

// A count, or null when absent, written at `at` (room for 20 characters); returns the end.
char* write_optional(char* at, const std::optional<uint64_t>& v) {
  if (v) return std::to_chars(at, at + 20, *v).ptr;
  std::memcpy(at, "null", 4);
  return at + 4;
}

void append_optional(std::string& out, const std::optional<uint64_t>& v) {
  char buffer[20];
  out.append(buffer, write_optional(buffer, v));
}

// A string the report may not know: null when empty.
void append_optional_string(std::string& out, const std::string& v) {
  if (v.empty()) out += "null";
  else append_json_string(out, v);
}

// Each distinct (name, module, kind) once; nodes refer to it by index.
struct NameModuleKind {
  std::array<std::string_view, 3> operator()(const ReportFrame& frame) const {
    return {frame.name, frame.module, frame.kind};
  }
};
using Frames = FrameTable<NameModuleKind>;

void append_frames(std::string& out, const std::vector<const ReportFrame*>& frames) {
  out += "[";
  for (size_t i = 0; i < frames.size(); ++i) {
    const ReportFrame& frame = *frames[i];
    out += i ? ",\n[" : "\n[";
    append_json_string(out, frame.name);
    out += ',';
    append_json_string(out, frame.module);
    out += ',';
    append_json_string(out, frame.kind);
    out += ']';
  }
  out += "]";
}

// Writes nodes, each as an array of its kNodeFields numbers, its subtree after it (pre-order). With `work`, idle
// workers write later siblings' subtrees into texts of their own, put in place: the same text whoever wrote what.
struct NodeWriter {
  NodeWriter(const Frames& frames, FrameListing listing, SharedWork* work)
      : frames(frames), listing(listing), work(work), recent(workers()) {}
  unsigned workers() const { return work ? work->helpers() + 1 : 1; }
  uint64_t frame_index(const ReportFrame* frame, unsigned worker) {
    return listing == FrameListing::kEveryInterned ? frame->id : frames.numbered(frame, recent[worker]);
  }
  const Frames& frames;  // kUsed: every frame numbered already
  FrameListing listing;
  SharedWork* work;
  std::deque<Frames::Recent> recent;  // one per worker
};

// Text in chunks, in order: a piece's text goes in without its bytes being copied (pieces nest: a helper's piece
// holds the pieces it handed on, and copying each into the one around it copied the deepest text again and again).
struct Chunks {
  std::list<std::string> list = std::list<std::string>(1);
  std::string& tail() { return list.back(); }
  void splice(Chunks& other) {
    list.splice(list.end(), other.list);
    list.emplace_back();
  }
};

void append_subtrees(Chunks& out, const ReportNode* nodes, size_t count, NodeWriter& writer, unsigned worker);

class SubtreesPiece : public SharedWork::Piece {
 public:
  SubtreesPiece(NodeWriter& writer, const ReportNode* nodes, size_t count)
      : writer_(writer), nodes_(nodes), count_(count) {}
  void run(unsigned worker) override { append_subtrees(text, nodes_, count_, writer_, worker); }
  Chunks text;

 private:
  NodeWriter& writer_;
  const ReportNode* nodes_;
  size_t count_;
};

// Deep trees: callers run on a large stack. Each node's array is formatted into a buffer and appended at once:
// a report has millions of nodes, and appending each number and comma to the string on its own took most of the
// writing's time.
void append_node(Chunks& out, const ReportNode& node, NodeWriter& writer, unsigned worker, bool first) {
  const std::optional<uint64_t> fields[] = {writer.frame_index(node.frame, worker),
                                            node.children.size(), node.calls,
                                            node.samples,           node.self_samples,   node.total_ns,
                                            node.self_ns,           node.tail_entries,   node.cpu_samples,
                                            node.self_cpu_samples};
  static_assert(std::size(fields) == kNodeFields.size());
  size_t written = std::size(fields);  // the zeros at the end are left out
  while (written > kNodeFieldsRequired && fields[written - 1] == uint64_t{0}) --written;
  char buffer[std::size(fields) * 21 + 3];  // a comma and at most 20 digits each, the brackets
  char* at = buffer;
  if (!first) *at++ = ',';
  *at++ = '[';
  for (size_t i = 0; i < written; ++i) {
    if (i) *at++ = ',';
    at = write_optional(at, fields[i]);
  }
  *at++ = ']';
  out.tail().append(buffer, at);
  append_subtrees(out, node.children.data(), node.children.size(), writer, worker);
}

void append_subtrees(Chunks& out, const ReportNode* nodes, size_t count, NodeWriter& writer, unsigned worker) {
  for (size_t i = 0; i < count; ++i) {
    if (writer.work && count - i >= 2 && writer.work->wanted()) {
      size_t kept = (count - i) / 2;
      SubtreesPiece piece(writer, nodes + i + kept, count - i - kept);
      writer.work->offer(piece, worker);
      append_subtrees(out, nodes + i, kept, writer, worker);
      writer.work->complete(piece, worker);
      out.splice(piece.text);
      return;
    }
    append_node(out, nodes[i], writer, worker, false);
  }
}

// Gives each frame its index, in the order append_node meets them; returns the number of nodes. Iterative: trees
// are as deep as the deepest call stack.
size_t number_frames(const std::vector<ReportNode>& roots, Frames& frames) {
  size_t count = 0;
  std::vector<const ReportNode*> stack;
  for (auto it = roots.rbegin(); it != roots.rend(); ++it) stack.push_back(&*it);
  while (!stack.empty()) {
    const ReportNode* node = stack.back();
    stack.pop_back();
    frames.index_of(node->frame);
    ++count;
    for (auto it = node->children.rbegin(); it != node->children.rend(); ++it) stack.push_back(&*it);
  }
  return count;
}

// What a node usually takes in the file (a frame, children and calls, most nodes): the output is reserved from it.
constexpr size_t kBytesPerNode = 16;

}  // namespace

std::string report_to_json(const Report& report, SharedWork* work, FrameListing listing) {
  // The frames come before the threads in the file: number them first, in the order the nodes are written (or
  // take every frame interned, whose ids number them), so that the whole report is written once into one string
  // of about the right size.
  Frames frames;
  std::vector<const ReportFrame*> listed;
  size_t nodes = 0;
  if (listing == FrameListing::kEveryInterned) {
    // Taken after the report was built: every frame of its nodes is in it.
    listed = interned_frames();
    if (report.stats.tree) nodes = report.stats.tree->nodes.value_or(0);
  } else {
    for (const ReportThread& thread : report.threads) nodes += number_frames(thread.roots, frames);
    listed = frames.frames();
  }
  std::string out;
  out.reserve(nodes * kBytesPerNode + listed.size() * 128 + 4096);
  out += "{\"schema\":";
  append_json_string(out, kReportSchema);
  out += ",\"mode\":";
  append_json_string(out, report.mode);
  out += ",\"pid\":";
  out += std::to_string(report.pid);
  out += ",\"program\":";
  append_optional_string(out, report.program);
  out += ",\"command_line\":[";
  for (size_t i = 0; i < report.command_line.size(); ++i) {
    if (i) out += ',';
    append_json_string(out, report.command_line[i]);
  }
  out += "],\"runtime\":";
  append_json_string(out, report.runtime);
  out += ",\"umbra_version\":";
  append_optional_string(out, report.umbra_version);
  out += ",\"runtime_frames\":";
  append_json_string(out, runtime_frames_name(report.runtime_frames));
  out += ",\"duration_ns\":";
  append_uint(out, report.duration_ns);
  out += ",\n\"node_fields\":[";
  for (size_t i = 0; i < kNodeFields.size(); ++i) {
    if (i) out += ',';
    append_json_string(out, kNodeFields[i]);
  }
  NodeWriter writer(frames, listing, work);
  out += "],\n\"frames\":";
  append_frames(out, listed);
  out += ",\n\"threads\":[";
  for (size_t t = 0; t < report.threads.size(); ++t) {
    const ReportThread& thread = report.threads[t];
    if (t) out += ',';
    out += "\n{\"os_tid\":";
    append_uint(out, thread.os_tid);
    out += ",\"managed_id\":";
    append_optional(out, thread.managed_id);
    out += ",\"name\":";
    if (thread.name) append_json_string(out, *thread.name);
    else out += "null";
    out += ",\"exited\":";
    out += thread.exited ? "true" : "false";
    out += ",\"managed_samples\":";
    append_optional(out, thread.managed_samples);
    out += ",\"native_samples\":";
    append_optional(out, thread.native_samples);
    out += ",\"cpu_ns\":";
    append_optional(out, thread.cpu_ns);
    if (thread.sampled_by_snapshot) out += ",\"sampled_by_snapshot\":true";
    for (const auto& [name, count] : {std::pair{",\"walks_checked\":", &thread.walks_checked},
                                      std::pair{",\"walk_frames_checked\":", &thread.walk_frames_checked},
                                      std::pair{",\"walk_frames_agreed\":", &thread.walk_frames_agreed}}) {
      if (!*count) continue;
      out += name;
      append_uint(out, **count);
    }
    out += ",\"nodes\":[";
    if (!thread.roots.empty()) {
      Chunks nodes;
      nodes.tail() = std::move(out);  // without helpers, the only chunk
      append_node(nodes, thread.roots.front(), writer, 0, true);
      append_subtrees(nodes, thread.roots.data() + 1, thread.roots.size() - 1, writer, 0);
      out = std::move(nodes.list.front());
      for (auto chunk = std::next(nodes.list.begin()); chunk != nodes.list.end(); ++chunk) out += *chunk;
    }
    out += "]}";
  }
  out += "],\n\"stats\":";
  out += stats_to_json(report.stats).dump();
  out += "}\n";
  return out;
}

}  // namespace umbra
