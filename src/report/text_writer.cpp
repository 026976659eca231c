#include "report/text_writer.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "report/display_text.h"

namespace umbra {
namespace {

// What a node weighs in its thread: time where it was measured, samples otherwise.
struct Weight {
  bool by_time;
  uint64_t of(const ReportNode& n) const { return by_time ? n.total_ns.value_or(0) : n.samples; }
};

std::string with_commas(uint64_t v) {
  std::string digits = std::to_string(v);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string three_decimals(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

std::string ms(std::optional<uint64_t> ns) { return ns ? three_decimals(double(*ns) / 1e6) : "-"; }

void line(std::string& out, const std::string& calls, const std::string& samples, const std::string& total,
          const std::string& self, double percent, int depth, const std::string& label) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%13s %9s %12s %12s %6.1f%%  ", calls.c_str(), samples.c_str(), total.c_str(),
                self.c_str(), percent);
  out += buf;
  // Indentation stops growing past kMaxIndentDepth, where the depth is printed instead: a 65,536-deep stack
  // indented in full would take gigabytes.
  constexpr int kMaxIndentDepth = 60;
  out.append(size_t(std::min(depth, kMaxIndentDepth)) * 2, ' ');
  if (depth > kMaxIndentDepth) out += "[depth " + std::to_string(depth) + "] ";
  out += label;
  out += '\n';
}

void write_node(std::string& out, const ReportNode& node, int depth, uint64_t thread_weight, double min_percent,
                const Weight& weight) {
  double percent = thread_weight ? 100.0 * double(weight.of(node)) / double(thread_weight) : 0.0;
  std::string label = display_text(node.name);
  if (!node.module.empty()) label += "  [" + display_text(node.module) + "]";
  if (node.kind == "native") label += "  (native)";
  if (node.tail_entries) label += "  (" + with_commas(node.tail_entries) + " via tail call)";
  line(out, node.calls ? with_commas(*node.calls) : "-", with_commas(node.samples), ms(node.total_ns),
       ms(node.self_ns), percent, depth, label);

  std::vector<const ReportNode*> children;
  for (const auto& c : node.children) children.push_back(&c);
  std::stable_sort(children.begin(), children.end(),
                   [&](const ReportNode* a, const ReportNode* b) { return weight.of(*a) > weight.of(*b); });
  uint64_t folded = 0, folded_calls = 0, folded_weight = 0;
  for (const ReportNode* child : children) {
    double child_percent = thread_weight ? 100.0 * double(weight.of(*child)) / double(thread_weight) : 0.0;
    if (child_percent < min_percent && child->kind != "marker") {  // a cut in the tree is always shown
      ++folded;
      folded_calls += child->calls.value_or(0);
      folded_weight += weight.of(*child);
      continue;
    }
    write_node(out, *child, depth + 1, thread_weight, min_percent, weight);
  }
  if (folded) {
    char label_buf[96];
    std::snprintf(label_buf, sizeof label_buf, "... %" PRIu64 " more under %.1f%% each", folded, min_percent);
    double percent_folded = thread_weight ? 100.0 * double(folded_weight) / double(thread_weight) : 0.0;
    line(out, folded_calls ? with_commas(folded_calls) : "", "", weight.by_time ? ms(folded_weight) : "", "",
         percent_folded, depth + 1, label_buf);
  }
}

}  // namespace

// Header lines are built as strings, not in fixed buffers: they hold names, and a long one must not cut the line.
std::string report_to_text(const Report& report, double min_percent) {
  std::string out = "umbra " + display_text(report.mode) + " profile of pid " + std::to_string(report.pid) +
                    " (runtime " + display_text(report.runtime) + "), " +
                    three_decimals(double(report.duration_ns) / 1e9) + " s, " +
                    std::to_string(report.threads.size()) + " threads\n";
  // The same counts as the exit line's "not captured": the hooks' drops and the sampler's.
  std::string drops;
  auto list_drops = [&](const JsonValue* d, const std::string& prefix) {
    if (d == nullptr || !d->is_object()) return;
    for (const auto& [reason, count] : d->as_object())
      if (count.is_number() && count.as_uint() > 0)
        drops += " " + prefix + display_text(reason) + "=" + with_commas(count.as_uint());
  };
  list_drops(report.stats.find("drops"), "");
  const JsonValue* sampler = report.stats.find("sampler");
  list_drops(sampler ? sampler->find("drops") : nullptr, "sampler.");
  out += "not captured:" + (drops.empty() ? std::string(" nothing") : drops) + "\n";
  if (const JsonValue* r = report.stats.find("reconcile"); r && r->is_object()) {
    auto number = [&](const JsonValue* o, const char* key) {
      const JsonValue* v = o ? o->find(key) : nullptr;
      return v && v->is_number() ? v->as_uint() : 0;
    };
    auto named = [&](const char* key) {
      std::string parts;
      if (const JsonValue* o = r->find(key); o && o->is_object())
        for (const auto& [k, v] : o->as_object())
          if (v.is_number() && v.as_uint() > 0) parts += " " + display_text(k) + "=" + with_commas(v.as_uint());
      return parts.empty() ? std::string(" none") : parts;
    };
    out += "reconciled: " + with_commas(number(r, "snapshots")) + " snapshots, " +
           with_commas(number(r, "frames_compared")) + " frames compared, " + with_commas(number(r, "unexplained")) +
           " unexplained; repairs:" + named("repairs") + "; spliced:" + named("spliced") + "\n";
  }

  for (const ReportThread& thread : report.threads) {
    bool by_time = report.mode == "shadow";
    Weight weight{by_time};
    uint64_t thread_weight = by_time ? thread_total_ns(thread) : thread_samples(thread);
    std::string name = thread.name ? "\"" + display_text(*thread.name) + "\"" : "(unnamed)";
    out += "\n=== thread " + name + "  os tid " + std::to_string(thread.os_tid) +
           (thread.exited ? "  (exited)" : "") + "  " + with_commas(thread_calls(thread)) + " calls  " +
           ms(thread_total_ns(thread)) + " ms  " + with_commas(thread_samples(thread)) + " samples ===\n";
    // The columns of line(): calls, samples, total ms, self ms, the share of the thread, then the method.
    out += "        calls   samples     total ms      self ms  thread  method\n";
    std::vector<const ReportNode*> roots;
    for (const auto& r : thread.roots) roots.push_back(&r);
    std::stable_sort(roots.begin(), roots.end(),
                     [&](const ReportNode* a, const ReportNode* b) { return weight.of(*a) > weight.of(*b); });
    for (const ReportNode* root : roots) write_node(out, *root, 0, thread_weight, min_percent, weight);
  }
  return out;
}

}  // namespace umbra
