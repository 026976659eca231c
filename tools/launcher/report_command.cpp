#include "report_command.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <new>
#include <optional>
#include <unordered_map>

#include "profiler/config.h"
#include "profiler/value_parsers.h"
#include "report/display_text.h"
#include "report/json_parser.h"
#include "report/output_files.h"
#include "report/report_reader.h"
#include "report/report_tree.h"
#include "report/runtime_folding.h"
#include "util/large_stack.h"

namespace umbra::launcher {
namespace {

struct ReportArgs {
  std::string input;
  std::vector<std::string> formats;
  std::string prefix;
  std::optional<std::string> thread;
  bool merge_threads = false;
  double min_percent = 0.5;
  std::optional<uint64_t> top;
  CollapsedWeight weight = CollapsedWeight::kSamples;
  bool collapsed_threads = false;
  std::optional<RuntimeFrames> runtime_frames;  // unset: as the report says its run showed them
  std::optional<uint64_t> max_memory_mb;  // unset: default_max_memory_mb()
};

// The memory `umbra report` may take unless told otherwise: half the machine's, so that a file that needs more
// (crafted, or the report of a huge profile) is refused in one line instead of driving the machine into swap or the
// OOM killer.
constexpr uint64_t kDefaultMemoryShare = 2;
constexpr uint64_t kMaxMemoryMb = uint64_t(1) << 30;

uint64_t default_max_memory_mb() {
  long pages = sysconf(_SC_PHYS_PAGES), page_bytes = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_bytes <= 0) return 4096;
  return std::max<uint64_t>(uint64_t(pages) / kDefaultMemoryShare * uint64_t(page_bytes) >> 20, 1024);
}

// The address-space limit the command runs under: the cap (--max-memory-mb), or a lower limit it was started with
// (ulimit -v), which it never raises, or none (under ASan or TSan).
struct MemoryLimit {
  enum class Kind { kNone, kCap, kInherited } kind = Kind::kNone;
  uint64_t mb = 0;

  // What an allocation that failed ran into, for "it needs more than ...".
  std::string described() const {
    if (kind == Kind::kCap) return "the " + std::to_string(mb) + " MiB cap (--max-memory-mb N raises it)";
    if (kind == Kind::kInherited)
      return "the address-space limit of " + std::to_string(mb) + " MiB it was started with (ulimit -v)";
    return "the memory the machine could give";
  }
};

// The cap as an address-space limit (RLIMIT_AS): what the process has mapped now (its code and libraries), the
// large stack the report is worked on, and the cap itself, so that no file, however crafted, makes the command take
// more; an allocation past it fails (std::bad_alloc), which is said in one line. Address space, not resident memory:
// a reservation counts whole, touched or not. Not under ASan or TSan, whose shadow memory maps terabytes up front.
MemoryLimit limit_memory(uint64_t cap_mb) {
  MemoryLimit limit;
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  uint64_t mapped_pages = 0;
  if (FILE* statm = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(statm, "%" SCNu64, &mapped_pages) != 1) mapped_pages = 0;
    std::fclose(statm);
  }
  const uint64_t wanted = mapped_pages * uint64_t(sysconf(_SC_PAGESIZE)) + kLargeStackBytes + (cap_mb << 20);
  rlimit now{};
  if (getrlimit(RLIMIT_AS, &now) != 0) return limit;
  if (now.rlim_cur != RLIM_INFINITY && now.rlim_cur <= wanted) {
    limit.kind = MemoryLimit::Kind::kInherited;
    limit.mb = now.rlim_cur >> 20;
    return limit;
  }
  rlimit capped{wanted, now.rlim_max};
  if (setrlimit(RLIMIT_AS, &capped) == 0) {
    limit.kind = MemoryLimit::Kind::kCap;
    limit.mb = cap_mb;
  }
#endif
  return limit;
}

void say_out_of_memory(const std::string& input, const std::string& doing, const MemoryLimit& limit) {
  std::fprintf(stderr, "umbra report: %s: out of memory %s: it needs more than %s\n", input.c_str(), doing.c_str(),
               limit.described().c_str());
}

int usage_error(const std::string& message) {
  std::fprintf(stderr, "umbra report: %s\nusage: %s", message.c_str(), kReportSynopsis);
  return 2;
}

std::optional<std::string> parse_args(const std::vector<std::string>& args, ReportArgs& out) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::optional<std::string> {
      if (i + 1 >= args.size()) return std::nullopt;
      return args[++i];
    };
    if (a == "--format") {
      auto v = value();
      if (!v) return a + " needs a value";
      for (const auto& f : split_list(*v)) {
        if (!is_written_format(f)) return "--format '" + *v + "': '" + f + "' is not a format this build writes";
        out.formats.push_back(f);
      }
    } else if (a == "-o" || a == "--output") {
      auto v = value();
      if (!v || v->empty()) return a + " needs a prefix";
      out.prefix = *v;
    } else if (a == "--thread") {
      auto v = value();
      if (!v) return a + " needs a thread name or OS thread id";
      out.thread = *v;
    } else if (a == "--collapsed-threads") {
      out.collapsed_threads = true;
    } else if (a == "--merge-threads") {
      out.merge_threads = true;
    } else if (a == "--min-percent") {
      auto v = value();
      auto p = v ? parse_percent(*v) : std::nullopt;
      if (!p) return "--min-percent '" + v.value_or("") + "' is not a percentage from 0 to 100";
      out.min_percent = *p;
    } else if (a == "--top") {
      auto v = value();
      auto n = v ? parse_unsigned(*v, 1, 1000000) : std::nullopt;
      if (!n) return "--top '" + v.value_or("") + "' is not a whole number from 1 to 1000000";
      out.top = *n;
    } else if (a == "--collapsed-weight") {
      auto v = value();
      if (v == "samples") out.weight = CollapsedWeight::kSamples;
      else if (v == "cpu_samples") out.weight = CollapsedWeight::kCpuSamples;
      else if (v == "self_ns") out.weight = CollapsedWeight::kSelfNs;
      else if (v == "calls") out.weight = CollapsedWeight::kCalls;
      else return "--collapsed-weight '" + v.value_or("") + "' is not samples, cpu_samples, self_ns or calls";
    } else if (a == "--max-memory-mb") {
      auto v = value();
      auto n = v ? parse_unsigned(*v, 1, kMaxMemoryMb) : std::nullopt;
      if (!n)
        return "--max-memory-mb '" + v.value_or("") + "' is not a whole number from 1 to " +
               std::to_string(kMaxMemoryMb);
      out.max_memory_mb = *n;
    } else if (a == "--runtime-frames") {
      auto v = value();
      out.runtime_frames = v ? runtime_frames_named(*v) : std::nullopt;
      if (!out.runtime_frames) return "--runtime-frames '" + v.value_or("") + "' is not fold or keep";
    } else if (!a.empty() && a[0] == '-') {
      return "unknown option '" + a + "'";
    } else if (out.input.empty()) {
      out.input = a;
    } else {
      return "one report at a time ('" + out.input + "' and '" + a + "')";
    }
  }
  if (out.input.empty()) return "no report file given";
  if (out.prefix.empty()) {
    out.prefix = out.input;
    if (out.prefix.size() > 5 && out.prefix.compare(out.prefix.size() - 5, 5, ".json") == 0)
      out.prefix.resize(out.prefix.size() - 5);
    out.prefix += ".converted";
  }
  if (out.formats.empty() && !out.top) out.formats = {"text"};
  return std::nullopt;
}

void progress(const std::string& line) {
  if (isatty(STDERR_FILENO)) std::fprintf(stderr, "umbra report: %s\n", line.c_str());
}

// Sums every thread into one, merging identical paths.
void merge_threads(Report& report) {
  ReportThread all;
  all.name = "all threads";
  SiblingMerger merger(all.roots);
  for (auto& t : report.threads)
    for (auto& root : t.roots) merger.add(std::move(root));
  for (auto& root : all.roots) finish_totals(root);
  report.threads.assign(1, std::move(all));
}

struct MethodTotals {
  uint64_t self_ns = 0, self_samples = 0, calls = 0;
  bool timed = false;
  MethodTotals& operator+=(const MethodTotals& o) {
    self_ns += o.self_ns;
    self_samples += o.self_samples;
    calls += o.calls;
    timed |= o.timed;
    return *this;
  }
};

// Per frame first (a pointer per node); frames of one name are summed after.
void add_methods(const ReportNode& node, std::unordered_map<const ReportFrame*, MethodTotals>& methods) {
  methods[node.frame] += {.self_ns = node.self_ns.value_or(0), .self_samples = node.self_samples,
                          .calls = node.calls.value_or(0), .timed = node.self_ns.has_value()};
  for (const auto& c : node.children) add_methods(c, methods);
}

void print_top(const Report& report, uint64_t n) {
  std::unordered_map<const ReportFrame*, MethodTotals> by_frame;
  for (const auto& t : report.threads)
    for (const auto& r : t.roots) add_methods(r, by_frame);
  std::map<std::string, MethodTotals> methods;
  for (const auto& [frame, totals] : by_frame) methods[frame->name] += totals;
  std::vector<std::pair<std::string, MethodTotals>> rows(methods.begin(), methods.end());
  bool by_time = report.mode == "shadow";
  std::stable_sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) {
    return by_time ? a.second.self_ns > b.second.self_ns : a.second.self_samples > b.second.self_samples;
  });
  std::printf("%12s %14s %10s  %s\n", "self ms", "calls", "samples", "method");
  for (size_t i = 0; i < rows.size() && i < n; ++i) {
    const MethodTotals& m = rows[i].second;
    char self[32], calls[32];
    if (m.timed) std::snprintf(self, sizeof self, "%.3f", double(m.self_ns) / 1e6);
    else std::snprintf(self, sizeof self, "-");
    if (by_time) std::snprintf(calls, sizeof calls, "%" PRIu64, m.calls);
    else std::snprintf(calls, sizeof calls, "-");
    std::printf("%12s %14s %10" PRIu64 "  %s\n", self, calls, m.self_samples, display_text(rows[i].first).c_str());
  }
}

// Reads the report in `text` and writes what `a` asks for; `status` 2 for a file that is not a report, a thread not
// found or a file not written. `doing` names the step under way.
void convert(const ReportArgs& a, std::string& text, std::string& doing, int& status) {
  Report report;
  try {
    report = load_report_from_text(text);
  } catch (const JsonParseError& e) {
    std::fprintf(stderr, "umbra report: %s: line %zu, column %zu (byte %zu): %s\n", a.input.c_str(), e.line,
                 e.column, e.offset, e.what());
    status = 2;
    return;
  } catch (const ReportFormatError& e) {
    std::fprintf(stderr, "umbra report: %s: %s\n", a.input.c_str(), e.what());
    status = 2;
    return;
  }
  std::string().swap(text);  // read: its memory goes to the formats
  if (a.thread) {
    std::vector<ReportThread> kept;
    for (auto& t : report.threads)
      if ((t.name && *t.name == *a.thread) || std::to_string(t.os_tid) == *a.thread) kept.push_back(std::move(t));
    if (kept.empty()) {
      std::fprintf(stderr, "umbra report: %s: no thread named or with OS id '%s'\n", a.input.c_str(),
                   a.thread->c_str());
      status = 2;
      return;
    }
    report.threads = std::move(kept);
  }
  if (a.merge_threads) {
    doing = "merging its threads";
    merge_threads(report);
  }
  if (a.runtime_frames) report.runtime_frames = *a.runtime_frames;
  OutputRequest request{a.prefix, a.formats, a.min_percent, report.pid,
                        CollapsedOptions{a.weight, a.collapsed_threads}};
  progress("writing " + std::to_string(a.formats.size()) + " format(s)");
  doing = "writing " + a.prefix + ".*";
  auto written = write_report_files(report, request, [&](const std::string& line) {
    std::fprintf(stderr, "umbra report: %s\n", line.c_str());
  });
  // A report cut to its bounds is said, not failed; a file not written where asked fails.
  for (const auto& format : a.formats)
    if (std::find(written.begin(), written.end(), a.prefix + format_extension(format)) == written.end()) status = 2;
  for (const auto& w : written) std::fprintf(stderr, "umbra report: wrote %s\n", w.c_str());
  if (a.top) {
    doing = "listing its top methods";
    if (report.runtime_frames == RuntimeFrames::kFold) fold_runtime_frames(report);  // already, if a file was
    print_top(report, *a.top);
  }
}

}  // namespace

int run_report_command(const std::vector<std::string>& args) {
  ReportArgs a;
  if (auto problem = parse_args(args, a)) return usage_error(*problem);
  const MemoryLimit limit = limit_memory(a.max_memory_mb.value_or(default_max_memory_mb()));

  std::ifstream in(a.input, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "umbra report: cannot read '%s'\n", a.input.c_str());
    return 2;
  }
  // Straight into one string of the file's size: a stringstream and the copy taken from it held the file up to
  // three times over, for the whole command.
  std::string text;
  std::error_code size_error;
  const uint64_t size = std::filesystem::file_size(a.input, size_error);
  if (!size_error && limit.kind != MemoryLimit::Kind::kNone && size > (limit.mb << 20)) {
    std::fprintf(stderr, "umbra report: %s: not read: its %" PRIu64 " MiB of text are more than %s\n", a.input.c_str(),
                 (size + (1 << 20) - 1) >> 20, limit.described().c_str());
    return 2;
  }
  try {
    if (!size_error) text.reserve(size);
    char chunk[1 << 16];
    while (in.read(chunk, sizeof chunk) || in.gcount() > 0) text.append(chunk, size_t(in.gcount()));
  } catch (const std::bad_alloc&) {
    std::string().swap(text);
    say_out_of_memory(a.input, "reading it", limit);
    return 2;
  }
  progress("read " + a.input + " (" + std::to_string(text.size()) + " bytes), parsing");

  int status = 0;
  std::string error;
  bool ran = run_on_large_stack([&] {
    // Each step's words for a std::bad_alloc met in it: the cap, or a file larger than memory, ends in one line.
    std::string doing = "reading it";
    try {
      convert(a, text, doing, status);
    } catch (const std::bad_alloc&) {
      say_out_of_memory(a.input, doing, limit);
      status = 2;
    }
  }, &error);
  if (!ran) {
    std::fprintf(stderr, "umbra report: %s: not read: %s\n", a.input.c_str(), large_stack_refusal(error).c_str());
    return 2;
  }
  return status;
}

}  // namespace umbra::launcher
