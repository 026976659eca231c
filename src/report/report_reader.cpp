#include "report/report_reader.h"

#include <malloc.h>

#include <optional>
#include <string>
#include <vector>

#include "report/json_parser.h"
#include "report/report_stats_json.h"
#include "report/report_stream_reader.h"

namespace umbra {
namespace {

// Where a node is: its thread ("threads[i]"), its root's index, then the child index at each level below.
struct NodePath {
  const std::string& thread;
  size_t root;
  const std::vector<size_t>& children;
};

std::string describe(const std::string& where) { return where; }

std::string describe(const NodePath& path) {
  std::string out = path.thread + ".roots[" + std::to_string(path.root) + "]";
  // A path thousands of levels deep keeps its first and last few levels.
  constexpr size_t kShown = 4;
  size_t levels = path.children.size();
  for (size_t i = 0; i < levels; ++i) {
    if (levels > 2 * kShown && i == kShown) {
      out += ".<" + std::to_string(levels - 2 * kShown) + " more levels>";
      i = levels - kShown - 1;
      continue;
    }
    out += ".children[" + std::to_string(path.children[i]) + "]";
  }
  return out;
}

template <typename Where>
[[noreturn]] void fail(const Where& where, const std::string& what) {
  throw ReportFormatError(describe(where) + ": " + what);
}

template <typename Where>
[[noreturn]] void fail(const Where& where, const char* key, const std::string& what) {
  throw ReportFormatError(describe(where) + "." + key + ": " + what);
}

template <typename Where>
const JsonValue& member(const JsonValue& object, const char* key, const Where& where) {
  const JsonValue* v = object.find(key);
  if (v == nullptr) fail(where, std::string("missing \"") + key + "\"");
  return *v;
}

template <typename Where>
std::string string_of(const JsonValue& object, const char* key, const Where& where) {
  const JsonValue& v = member(object, key, where);
  if (!v.is_string()) fail(where, key, "not a string");
  return v.as_string();
}

template <typename Where>
std::optional<uint64_t> optional_count(const JsonValue& object, const char* key, const Where& where) {
  const JsonValue* v = object.find(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  std::optional<uint64_t> count = v->as_exact_uint();
  if (!count) fail(where, key, "not a whole number from 0 to 18446744073709551615");
  return count;
}

template <typename Where>
const JsonValue::Array& array_of(const JsonValue& object, const char* key, const Where& where) {
  const JsonValue& v = member(object, key, where);
  if (!v.is_array()) fail(where, key, "not an array");
  return v.as_array();
}

// Bounded by `levels`, so this recursion cannot go deep either.
bool nested_deeper_than(const JsonValue& v, size_t levels) {
  if (!v.is_array() && !v.is_object()) return false;
  if (levels == 0) return true;
  if (v.is_array()) {
    for (const auto& e : v.as_array())
      if (nested_deeper_than(e, levels - 1)) return true;
  } else {
    for (const auto& [k, e] : v.as_object())
      if (nested_deeper_than(e, levels - 1)) return true;
  }
  return false;
}

// A node's own fields; returns its children, for which `n.children` has room.
const JsonValue::Array& read_node(const JsonValue& v, ReportNode& n, const NodePath& where) {
  if (!v.is_object()) fail(where, "not an object");
  const JsonValue* kind = v.find("kind");
  const JsonValue* module = v.find("module");
  n.frame = intern_frame(string_of(v, "name", where), module && module->is_string() ? module->as_string() : "",
                         kind && kind->is_string() ? kind->as_string() : "managed");
  n.calls = optional_count(v, "calls", where);
  n.total_ns = optional_count(v, "total_ns", where);
  n.self_ns = optional_count(v, "self_ns", where);
  n.samples = optional_count(v, "samples", where).value_or(0);
  n.self_samples = optional_count(v, "self_samples", where).value_or(0);
  n.tail_entries = optional_count(v, "tail_entries", where).value_or(0);
  const auto& children = array_of(v, "children", where);
  n.children.reserve(children.size());
  return children;
}

// Iterative, with the levels on the heap: a deep tree takes no call stack here, and an error found deep in it
// unwinds nothing (ASan cannot clean up after an exception crossing hundreds of MiB of stack).
ReportNode tree_from(const JsonValue& v, const std::string& thread, size_t root) {
  struct Level {
    const JsonValue::Array* children;
    ReportNode* node;
    size_t next = 0;
  };
  std::vector<Level> levels;
  std::vector<size_t> indices;  // the child index at each level below the root
  NodePath where{thread, root, indices};
  ReportNode tree;
  levels.push_back({&read_node(v, tree, where), &tree});
  while (!levels.empty()) {
    Level& top = levels.back();
    if (top.next == top.children->size()) {
      levels.pop_back();
      if (!indices.empty()) indices.pop_back();
      continue;
    }
    size_t i = top.next++;
    const JsonValue& child = (*top.children)[i];
    ReportNode* node = &top.node->children.emplace_back();  // reserved: earlier siblings do not move
    indices.push_back(i);
    if (levels.size() >= kMaxReportDepth)
      fail(where, "call tree deeper than " + std::to_string(kMaxReportDepth) + " levels");
    levels.push_back({&read_node(child, *node, where), node});
  }
  return tree;
}

std::vector<const ReportFrame*> frames_from(const JsonValue& doc) {
  std::vector<const ReportFrame*> frames;
  const auto& entries = array_of(doc, "frames", std::string("document"));
  frames.reserve(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    const JsonValue& e = entries[i];
    if (!e.is_array() || e.as_array().size() != 3 || !e.as_array()[0].is_string() || !e.as_array()[1].is_string() ||
        !e.as_array()[2].is_string())
      fail("frames[" + std::to_string(i) + "]", "not [name, module, kind]");
    frames.push_back(intern_frame(e.as_array()[0].as_string(), e.as_array()[1].as_string(), e.as_array()[2].as_string()));
  }
  return frames;
}

// The schema's fields: the first `width` of kNodeFields.
void check_node_fields(const JsonValue& doc, size_t width) {
  const auto& fields = array_of(doc, "node_fields", std::string("document"));
  bool same = fields.size() == width;
  for (size_t i = 0; same && i < fields.size(); ++i)
    same = fields[i].is_string() && fields[i].as_string() == kNodeFields[i];
  if (!same) fail("node_fields", "not the fields this umbra reads (frame, children, calls, samples, ...)");
}

// A thread's nodes in pre-order, back into trees: each node an array of up to `layout.width` numbers (/4, missing
// ones 0), or `layout.width` numbers each in one flat array (/3, /2). Iterative: a deep tree takes no call stack here.
std::vector<ReportNode> trees_from(const JsonValue::Array& values, const std::vector<const ReportFrame*>& frames,
                                   const std::string& thread, const NodeLayout layout) {
  const size_t width = layout.width;
  if (!layout.arrays && values.size() % width != 0)
    fail(thread, "nodes", "not " + std::to_string(width) + " numbers per node");
  const size_t count = layout.arrays ? values.size() : values.size() / width;
  struct Open {
    ReportNode* node;
    uint64_t children_left;
  };
  std::vector<Open> open;
  uint64_t owed = 0;  // the sum of the open nodes' children_left: nodes that must still come
  std::vector<ReportNode> roots;
  for (size_t i = 0; i < count; ++i) {
    const std::string where = thread + ".nodes[" + std::to_string(i) + "]";
    // The node's numbers, and how many of them the text gives (/4 leaves out the zeros at the end).
    const JsonValue* numbers = nullptr;
    size_t given = width;
    if (layout.arrays) {
      if (!values[i].is_array() || values[i].as_array().size() < kNodeFieldsRequired ||
          values[i].as_array().size() > width)
        fail(where, "not an array of " + std::to_string(kNodeFieldsRequired) + " to " + std::to_string(width) +
                        " numbers");
      numbers = values[i].as_array().data();
      given = values[i].as_array().size();
    } else {
      numbers = &values[i * width];
    }
    auto number = [&](size_t field) -> std::optional<uint64_t> {
      if (field >= given) return 0;
      const JsonValue& v = numbers[field];
      if (v.is_null()) return std::nullopt;
      std::optional<uint64_t> n = v.as_exact_uint();
      if (!n) fail(where, kNodeFields[field], "not a whole number from 0 to 18446744073709551615");
      return n;
    };
    auto required = [&](size_t field) {
      std::optional<uint64_t> n = number(field);
      if (!n) fail(where, kNodeFields[field], "null");
      return *n;
    };
    uint64_t frame = required(0), children = required(1);
    if (frame >= frames.size()) fail(where, "frame", "no such frame");
    // The children must come after this node, and so must the children still owed to the nodes it is in: a
    // claim checked against the nodes that follow alone let each node of a chain reserve room for all of them,
    // memory the square of the count. With this check the reservations add up to at most twice the node count.
    if (!open.empty()) --owed;  // this node is one of them
    const uint64_t following = count - i - 1;  // owed <= following: the previous node's check
    if (children > following - owed) {
      fail(where, "children",
           owed == 0 ? std::string("more than the nodes that follow")
                     : "more than the nodes that follow less the " + std::to_string(owed) +
                           " still owed to the nodes it is in");
    }
    ReportNode* node;
    if (open.empty()) {
      node = &roots.emplace_back();
    } else {
      node = &open.back().node->children.emplace_back();  // reserved: earlier siblings do not move
      --open.back().children_left;
    }
    node->frame = frames[frame];
    node->calls = number(2);
    node->samples = number(3).value_or(0);
    node->self_samples = number(4).value_or(0);
    node->total_ns = number(5);
    node->self_ns = number(6);
    node->tail_entries = number(7).value_or(0);
    if (width > kNodeFieldsV2) {
      node->cpu_samples = number(8).value_or(0);
      node->self_cpu_samples = number(9).value_or(0);
    }
    if (children > 0) {
      if (open.size() + 1 >= kMaxReportDepth)
        fail(where, "call tree deeper than " + std::to_string(kMaxReportDepth) + " levels");
      node->children.reserve(children);
      open.push_back({node, children});
      owed += children;
    }
    while (!open.empty() && open.back().children_left == 0) open.pop_back();
  }
  if (!open.empty()) fail(thread, "nodes", "end inside a node's children");
  return roots;
}

// The process's arguments: read only when all of them are strings (a report of an earlier umbra has none).
std::vector<std::string> command_line_from(const JsonValue& doc) {
  std::vector<std::string> args;
  const JsonValue* v = doc.find("command_line");
  if (v == nullptr || !v->is_array()) return args;
  for (const JsonValue& arg : v->as_array()) {
    if (!arg.is_string()) return {};
    args.push_back(arg.as_string());
  }
  return args;
}

}  // namespace

Report report_from_json(const JsonValue& doc) {
  if (!doc.is_object()) fail("document", "not a JSON object");
  const JsonValue* schema = doc.find("schema");
  const std::string named = schema && schema->is_string() ? schema->as_string() : "";
  // /4, /3 and /2 write nodes as numbers (/4 an array each, /2 without the CPU samples); /1 as objects.
  const NodeLayout layout = node_layout_of(named);
  const size_t width = layout.width;
  const bool current = width > 0;
  if (!current && named != kReportSchemaV1)
    fail("schema", std::string("not \"") + kReportSchema + "\", \"" + kReportSchemaV3 + "\", \"" + kReportSchemaV2 +
                       "\" or \"" + kReportSchemaV1 + "\" (is this an umbra report?)");
  const std::string document = "document";
  std::vector<const ReportFrame*> frames;
  if (current) {
    check_node_fields(doc, width);
    frames = frames_from(doc);
  }
  Report r;
  r.mode = string_of(doc, "mode", document);
  if (const JsonValue* pid = doc.find("pid"); pid && pid->is_number()) r.pid = pid->as_int();
  if (const JsonValue* runtime = doc.find("runtime"); runtime && runtime->is_string()) r.runtime = runtime->as_string();
  if (const JsonValue* version = doc.find("umbra_version"); version && version->is_string())
    r.umbra_version = version->as_string();
  if (const JsonValue* frames_shown = doc.find("runtime_frames"); frames_shown && frames_shown->is_string())
    r.runtime_frames = runtime_frames_named(frames_shown->as_string()).value_or(RuntimeFrames::kFold);
  if (const JsonValue* program = doc.find("program"); program && program->is_string()) r.program = program->as_string();
  r.command_line = command_line_from(doc);
  r.duration_ns = optional_count(doc, "duration_ns", document).value_or(0);
  const auto& threads = array_of(doc, "threads", document);
  for (size_t t = 0; t < threads.size(); ++t) {
    std::string where = "threads[" + std::to_string(t) + "]";
    const JsonValue& v = threads[t];
    if (!v.is_object()) fail(where, "not an object");
    ReportThread thread;
    thread.os_tid = optional_count(v, "os_tid", where).value_or(0);
    thread.managed_id = optional_count(v, "managed_id", where);
    if (const JsonValue* name = v.find("name"); name && name->is_string()) thread.name = name->as_string();
    if (const JsonValue* exited = v.find("exited"); exited && exited->is_bool()) thread.exited = exited->as_bool();
    if (const JsonValue* by = v.find("sampled_by_snapshot"); by && by->is_bool()) thread.sampled_by_snapshot = by->as_bool();
    thread.managed_samples = optional_count(v, "managed_samples", where);
    thread.native_samples = optional_count(v, "native_samples", where);
    thread.cpu_ns = optional_count(v, "cpu_ns", where);
    thread.walks_checked = optional_count(v, "walks_checked", where);
    thread.walk_frames_checked = optional_count(v, "walk_frames_checked", where);
    thread.walk_frames_agreed = optional_count(v, "walk_frames_agreed", where);
    if (current) {
      thread.roots = trees_from(array_of(v, "nodes", where), frames, where, layout);
    } else {
      const auto& roots = array_of(v, "roots", where);
      for (size_t i = 0; i < roots.size(); ++i) thread.roots.push_back(tree_from(roots[i], where, i));
    }
    r.threads.push_back(std::move(thread));
  }
  if (const JsonValue* stats = doc.find("stats"); stats && stats->is_object()) {
    if (nested_deeper_than(*stats, kMaxStatsDepth))
      fail(document, "stats", "nested deeper than " + std::to_string(kMaxStatsDepth) + " levels");
    r.stats = stats_from_json(*stats);
  }
  return r;
}

Report load_report_from_text(std::string_view text) {
  // /4 (or /3, /2) as umbra writes it is read as it is parsed, in a fraction of the memory of a document tree; anything
  // else, a report with an error included, is read through the tree, which says where the error is.
  if (std::optional<Report> report = read_streamed_report(text)) return std::move(*report);
  // What the streaming reader built before it stopped (most of a truncated report) is free again, but held by the
  // allocator in pieces too small for the document tree: give it back first, or the two add up.
  malloc_trim(0);
  // Open containers above a /1 node at kMaxReportDepth: the document, "threads", a thread and its "roots", then an
  // object and a "children" array per level; one more level lets the reader say the tree is too deep. (/4 nests
  // five deep at most.)
  return report_from_json(parse_json(text, 4 + 2 * (kMaxReportDepth + 1)));
}

}  // namespace umbra
