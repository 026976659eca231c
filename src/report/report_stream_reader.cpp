#include "report/report_stream_reader.h"

#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "report/json_value.h"
#include "report/json_value_builder.h"
#include "report/report_reader.h"
#include "report/report_stats_json.h"

namespace umbra {
namespace {

// The document, "stats" and kMaxStatsDepth - 1 levels below it: anything deeper is no report the general reader
// accepts, or holds unread values it would skip; it reads those.
constexpr size_t kMaxNesting = 1 + kMaxStatsDepth;
// The fewest bytes a node takes in "nodes", its comma included: /4's "[0,0]", or one-digit numbers and their commas.
size_t least_node_bytes(NodeLayout layout) { return layout.arrays ? 6 : 2 * layout.width; }

// The members read, of the document and of a thread; the others are skipped. Each may appear once.
enum class Member { kOther, kSchema, kMode, kPid, kProgram, kCommandLine, kRuntime, kUmbraVersion, kRuntimeFrames,
                    kDurationNs, kNodeFields, kFrames, kThreads, kStats,
                    kOsTid, kManagedId, kName, kExited, kManagedSamples, kNativeSamples, kCpuNs, kNodes,
                    kSampledBySnapshot, kWalksChecked, kWalkFramesChecked, kWalkFramesAgreed };

struct MemberName {
  std::string_view name;
  Member member;
};
constexpr MemberName kDocumentMembers[] = {
    {"schema", Member::kSchema},  {"mode", Member::kMode},     {"pid", Member::kPid},
    {"program", Member::kProgram}, {"command_line", Member::kCommandLine}, {"runtime", Member::kRuntime},
    {"umbra_version", Member::kUmbraVersion}, {"runtime_frames", Member::kRuntimeFrames},
    {"duration_ns", Member::kDurationNs},
    {"node_fields", Member::kNodeFields},
    {"frames", Member::kFrames},  {"threads", Member::kThreads}, {"stats", Member::kStats}};
constexpr MemberName kThreadMembers[] = {
    {"os_tid", Member::kOsTid}, {"managed_id", Member::kManagedId}, {"name", Member::kName},
    {"exited", Member::kExited}, {"managed_samples", Member::kManagedSamples},
    {"native_samples", Member::kNativeSamples}, {"cpu_ns", Member::kCpuNs}, {"nodes", Member::kNodes},
    {"sampled_by_snapshot", Member::kSampledBySnapshot}, {"walks_checked", Member::kWalksChecked},
    {"walk_frames_checked", Member::kWalkFramesChecked}, {"walk_frames_agreed", Member::kWalkFramesAgreed}};

template <size_t N>
Member member_named(const MemberName (&members)[N], std::string_view name) {
  for (const auto& m : members)
    if (m.name == name) return m.member;
  return Member::kOther;
}

// A count as the general reader reads one: null is none; anything but a whole number from 0 to 2^64-1 is an error.
bool read_count(const JsonValue& v, std::optional<uint64_t>& out) {
  if (v.is_null()) {
    out.reset();
    return true;
  }
  out = v.as_exact_uint();
  return out.has_value();
}

// The general reader turns \uD800 without its pair into U+FFFD, RapidJSON refuses it and keeps a lone \uDC00 as it
// is; texts with either (which umbra never writes) go to the general reader. Any \u escape of a surrogate counts.
bool has_surrogate_escape(std::string_view text) {
  for (size_t i = text.find('\\'); i != std::string_view::npos; i = text.find('\\', i + 1)) {
    if (i + 3 < text.size() && text[i + 1] == 'u' && (text[i + 2] == 'd' || text[i + 2] == 'D') &&
        std::string_view("89abcdefABCDEF").find(text[i + 3]) != std::string_view::npos)
      return true;
  }
  return false;
}

// RapidJSON's handler: each event returns false, which stops the parse, at the first thing not read as the general
// reader would read it.
class StreamHandler {
 public:
  StreamHandler(const rapidjson::MemoryStream& stream, size_t size) : stream_(stream), size_(size) {}

  bool Null() { return value(JsonValue()); }
  bool Bool(bool b) { return value(JsonValue(b)); }
  // Numbers come as text (kParseNumbersAsStringsFlag: RapidJSON 1.1.0's conversion of some doubles is undefined
  // behaviour) and are converted as the general reader converts them: an integer that fits 64 bits as one, anything
  // else with from_chars as a double. A double out of range stops this reader (the general one reads the file).
  bool RawNumber(const char* s, rapidjson::SizeType n, bool) {
    const char* end = s + n;
    bool integral = std::find_if(s, end, [](char c) { return c == '.' || c == 'e' || c == 'E'; }) == end;
    if (integral && n > 0 && *s == '-') {
      int64_t v = 0;
      if (auto [last, error] = std::from_chars(s, end, v); error == std::errc() && last == end)
        return value(JsonValue(v));
    } else if (integral) {
      uint64_t v = 0;
      if (auto [last, error] = std::from_chars(s, end, v); error == std::errc() && last == end)
        return value(JsonValue(v));
    }
    double d = 0;
    auto [last, error] = std::from_chars(s, end, d);
    return error == std::errc() && last == end && value(JsonValue(d));
  }
  // Never called with kParseNumbersAsStringsFlag.
  bool Int(int) { return false; }
  bool Uint(unsigned) { return false; }
  bool Int64(int64_t) { return false; }
  bool Uint64(uint64_t) { return false; }
  bool Double(double) { return false; }
  bool String(const char* s, rapidjson::SizeType n, bool) { return value(JsonValue(std::string(s, n))); }
  bool Key(const char* s, rapidjson::SizeType n, bool) { return key(std::string_view(s, n)); }
  bool StartObject() { return open(true); }
  bool StartArray() { return open(false); }
  bool EndObject(rapidjson::SizeType) { return close(); }
  bool EndArray(rapidjson::SizeType) { return close(); }

  std::optional<Report> take() {
    if (!done_) return std::nullopt;
    return std::move(report_);
  }

 private:
  // The container being read.
  enum class In {
    kNothing, kDocument, kCommandLine, kNodeFields, kFrames, kFrame, kThreads, kThread, kNodes, kNode, kStats
  };

  bool value(JsonValue v) {
    if (skipped_ > 0) return true;
    switch (in_.back()) {
      case In::kDocument: return document_member(std::move(v));
      case In::kCommandLine:
        // An argument that is not a string: the command line is left out, as the general reader does.
        if (!v.is_string()) command_line_unreadable_ = true;
        else report_.command_line.push_back(v.as_string());
        return true;
      case In::kNodeFields:
        return v.is_string() && node_fields_ < layout_.width && v.as_string() == kNodeFields[node_fields_++];
      case In::kFrame:
        if (!v.is_string() || frame_strings_ == 3) return false;
        (frame_strings_ == 0 ? frame_.name : frame_strings_ == 1 ? frame_.module : frame_.kind) = v.as_string();
        ++frame_strings_;
        return true;
      case In::kThread: return thread_member(std::move(v));
      case In::kNodes: return !layout_.arrays && node_value(v);
      case In::kNode: return field_ < layout_.width && read_count(v, fields_[field_++]);
      case In::kStats: stats_.value(std::move(v)); return true;
      default: return false;  // the document itself, a frame or a thread as a scalar
    }
  }

  bool key(std::string_view name) {
    if (skipped_ > 0) return true;
    switch (in_.back()) {
      case In::kDocument:
        member_ = member_named(kDocumentMembers, name);
        if (document_members_ == 0 && member_ != Member::kSchema) return false;  // maybe /1: not read here
        return first_time(document_members_);
      case In::kThread:
        member_ = member_named(kThreadMembers, name);
        return first_time(thread_members_);
      case In::kStats: stats_.key(name); return true;
      default: return false;
    }
  }

  bool open(bool object) {
    if (++nesting_ > kMaxNesting) return false;
    if (skipped_ > 0) {
      ++skipped_;
      return true;
    }
    switch (in_.back()) {
      case In::kNothing: return object && enter(In::kDocument);
      case In::kDocument: return open_document_member(object);
      case In::kFrames:
        frame_strings_ = 0;
        return !object && enter(In::kFrame);
      case In::kThreads:
        thread_ = ReportThread();
        thread_members_ = 0;
        return object && enter(In::kThread);
      case In::kThread:
        if (member_ == Member::kNodes) return !object && enter(In::kNodes);
        return skip_unless(member_ == Member::kName || member_ == Member::kExited ||
                           member_ == Member::kSampledBySnapshot || member_ == Member::kOther);
      case In::kNodes: return layout_.arrays && !object && enter(In::kNode);
      case In::kStats: stats_.open(object); return true;
      case In::kCommandLine:
        command_line_unreadable_ = true;
        return skip_unless(true);
      default: return false;  // an array or object as a node field, a frame's string, or a number
    }
  }

  bool close() {
    --nesting_;
    if (skipped_ > 0) {
      --skipped_;
      return true;
    }
    In closed = in_.back();
    if (closed == In::kStats) {
      if (!stats_.close()) return true;
      report_.stats = stats_from_json(stats_.take());
    }
    in_.pop_back();
    switch (closed) {
      case In::kDocument:
        done_ = has(document_members_, Member::kMode) && has(document_members_, Member::kThreads);
        return done_;
      case In::kNodeFields: return node_fields_ == layout_.width;
      case In::kFrame:
        frames_.push_back(intern_frame(frame_.name, frame_.module, frame_.kind));
        return frame_strings_ == 3;
      case In::kThread:
        report_.threads.push_back(std::move(thread_));
        return has(thread_members_, Member::kNodes);
      case In::kNodes: return field_ == 0 && open_.empty();
      case In::kNode: {
        if (field_ < kNodeFieldsRequired) return false;
        for (; field_ < layout_.width; ++field_) fields_[field_] = 0;  // left out: zeros
        field_ = 0;
        return add_node();
      }
      case In::kCommandLine:
        if (command_line_unreadable_) report_.command_line.clear();
        return true;
      default: return true;
    }
  }

  bool enter(In in) {
    in_.push_back(in);
    return true;
  }

  bool skip_unless(bool skippable) {
    if (skippable) skipped_ = 1;
    return skippable;
  }

  static uint32_t bit(Member m) { return uint32_t(1) << unsigned(m); }
  static bool has(uint32_t members, Member m) { return members & bit(m); }
  bool first_time(uint32_t& members) {
    if (member_ == Member::kOther) return true;
    if (has(members, member_)) return false;  // the general reader reads the first: let it
    members |= bit(member_);
    return true;
  }

  bool document_member(JsonValue v) {
    switch (member_) {
      case Member::kSchema:
        // /4, or /3, or /2, whose nodes have no CPU samples.
        if (!v.is_string()) return false;
        layout_ = node_layout_of(v.as_string());
        return layout_.width > 0;
      case Member::kMode:
        if (!v.is_string()) return false;
        report_.mode = v.as_string();
        return true;
      case Member::kPid:
        if (v.is_number()) report_.pid = v.as_int();
        return true;
      case Member::kRuntime:
        if (v.is_string()) report_.runtime = v.as_string();
        return true;
      case Member::kUmbraVersion:
        if (v.is_string()) report_.umbra_version = v.as_string();
        return true;
      case Member::kProgram:
        if (v.is_string()) report_.program = v.as_string();
        return true;
      case Member::kRuntimeFrames:
        if (v.is_string()) report_.runtime_frames = runtime_frames_named(v.as_string()).value_or(RuntimeFrames::kFold);
        return true;
      case Member::kDurationNs: {
        std::optional<uint64_t> ns;
        if (!read_count(v, ns)) return false;
        report_.duration_ns = ns.value_or(0);
        return true;
      }
      case Member::kNodeFields:
      case Member::kFrames:
      case Member::kThreads: return false;  // not an array
      default: return true;  // "stats" that is not an object is no stats; other members are not read
    }
  }

  bool open_document_member(bool object) {
    switch (member_) {
      case Member::kCommandLine: return skip_unless(object) || enter(In::kCommandLine);
      case Member::kNodeFields: return !object && enter(In::kNodeFields);
      case Member::kFrames: return !object && enter(In::kFrames);
      case Member::kThreads:
        // Nodes are read as they come: their frames must be known by then.
        return !object && has(document_members_, Member::kNodeFields) && has(document_members_, Member::kFrames) &&
               enter(In::kThreads);
      case Member::kStats:
        if (!object) return skip_unless(true);
        stats_.open(true);
        return enter(In::kStats);
      default:
        return skip_unless(member_ == Member::kPid || member_ == Member::kProgram || member_ == Member::kRuntime ||
                           member_ == Member::kUmbraVersion || member_ == Member::kRuntimeFrames ||
                           member_ == Member::kOther);
    }
  }

  bool thread_member(JsonValue v) {
    switch (member_) {
      case Member::kOsTid: {
        std::optional<uint64_t> tid;
        if (!read_count(v, tid)) return false;
        thread_.os_tid = tid.value_or(0);
        return true;
      }
      case Member::kManagedId: return read_count(v, thread_.managed_id);
      case Member::kManagedSamples: return read_count(v, thread_.managed_samples);
      case Member::kNativeSamples: return read_count(v, thread_.native_samples);
      case Member::kCpuNs: return read_count(v, thread_.cpu_ns);
      case Member::kWalksChecked: return read_count(v, thread_.walks_checked);
      case Member::kWalkFramesChecked: return read_count(v, thread_.walk_frames_checked);
      case Member::kWalkFramesAgreed: return read_count(v, thread_.walk_frames_agreed);
      case Member::kName:
        if (v.is_string()) thread_.name = v.as_string();
        return true;
      case Member::kExited:
        if (v.is_bool()) thread_.exited = v.as_bool();
        return true;
      case Member::kSampledBySnapshot:
        if (v.is_bool()) thread_.sampled_by_snapshot = v.as_bool();
        return true;
      case Member::kNodes: return false;  // not an array
      default: return true;
    }
  }

  bool node_value(const JsonValue& v) {
    if (!read_count(v, fields_[field_])) return false;
    if (++field_ < layout_.width) return true;
    field_ = 0;
    return add_node();
  }

  // The node whose kNodeFields numbers were just read, added where the pre-order puts it.
  bool add_node() {
    if (!fields_[0] || *fields_[0] >= frames_.size() || !fields_[1]) return false;
    const uint64_t children = *fields_[1];
    // Every child owed to an open node is a node still to come: owing more than the rest of the text can hold
    // is an error, found before reserve() asks for room for them.
    if (!open_.empty()) --owed_;
    const uint64_t room = (size_ - stream_.Tell()) / least_node_bytes(layout_);
    if (children > room || owed_ + children > room) return false;
    ReportNode* node;
    if (open_.empty()) {
      node = &thread_.roots.emplace_back();
    } else {
      node = &open_.back().node->children.emplace_back();  // reserved: earlier siblings do not move
      --open_.back().children_left;
    }
    node->frame = frames_[*fields_[0]];
    node->calls = fields_[2];
    node->samples = fields_[3].value_or(0);
    node->self_samples = fields_[4].value_or(0);
    node->total_ns = fields_[5];
    node->self_ns = fields_[6];
    node->tail_entries = fields_[7].value_or(0);
    if (layout_.width > kNodeFieldsV2) {
      node->cpu_samples = fields_[8].value_or(0);
      node->self_cpu_samples = fields_[9].value_or(0);
    }
    if (children > 0) {
      if (open_.size() + 1 >= kMaxReportDepth) return false;
      node->children.reserve(children);
      open_.push_back({node, children});
      owed_ += children;
    }
    while (!open_.empty() && open_.back().children_left == 0) open_.pop_back();
    return true;
  }

  const rapidjson::MemoryStream& stream_;
  const size_t size_;
  Report report_;
  bool done_ = false;
  std::vector<In> in_{In::kNothing};
  size_t nesting_ = 0;
  bool command_line_unreadable_ = false;  // an argument that is not a string
  size_t skipped_ = 0;  // levels open inside a value not read, 0 when none
  Member member_ = Member::kOther;  // of the document or the thread being read
  uint32_t document_members_ = 0;   // bit(Member) of those seen
  uint32_t thread_members_ = 0;
  NodeLayout layout_;  // how the document's schema writes nodes: width, the numbers a node has (at most, in /4)
  size_t node_fields_ = 0;

  std::vector<const ReportFrame*> frames_;
  ReportFrame frame_;  // the one being read, interned when it closes
  size_t frame_strings_ = 0;

  ReportThread thread_;
  std::array<std::optional<uint64_t>, kNodeFields.size()> fields_;
  size_t field_ = 0;  // the next of fields_
  struct Open {
    ReportNode* node;
    uint64_t children_left;
  };
  std::vector<Open> open_;  // the nodes whose children are being read, outermost first
  uint64_t owed_ = 0;       // the sum of their children_left

  JsonValueBuilder stats_;
};

}  // namespace

std::optional<Report> read_streamed_report(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // as the general reader does
  if (has_surrogate_escape(text)) return std::nullopt;
  rapidjson::MemoryStream stream(text.data(), text.size());
  StreamHandler handler(stream, text.size());
  rapidjson::Reader reader;
  // Iterative: nesting takes no call stack. Numbers as text: see StreamHandler::RawNumber.
  constexpr unsigned kFlags = rapidjson::kParseIterativeFlag | rapidjson::kParseNumbersAsStringsFlag;
  if (reader.Parse<kFlags>(stream, handler).IsError()) return std::nullopt;
  // RapidJSON takes a NUL byte for the end of the text; what follows one is text after the document.
  if (stream.Tell() != text.size()) return std::nullopt;
  return handler.take();
}

}  // namespace umbra
