#include "report/text_writer.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string_view>

#include "report/display_text.h"

namespace umbra {
namespace {

// What a node weighs in its thread: time where it was measured, samples otherwise. In a thread with time, a node
// known only from samples (a method without hooks in focused shadow mode) weighs its share of the thread's samples.
struct Weight {
  bool by_time;
  double ns_per_sample = 0;
  uint64_t of(const ReportNode& n) const {
    if (!by_time) return n.samples;
    return n.total_ns ? *n.total_ns : uint64_t(double(n.samples) * ns_per_sample);
  }
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

void line(std::string& out, const std::string& calls, const std::string& samples, const std::string& cpu_samples,
          const std::string& total, const std::string& self, double percent, int depth, const std::string& label) {
  char buf[192];
  std::snprintf(buf, sizeof buf, "%13s %9s %9s %12s %12s %6.1f%%  ", calls.c_str(), samples.c_str(),
                cpu_samples.c_str(), total.c_str(), self.c_str(), percent);
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
  std::string label = display_text(node.name());
  if (!node.module().empty()) label += "  [" + display_text(node.module()) + "]";
  if (node.kind() == "native") label += "  (native)";
  if (node.tail_entries) label += "  (" + with_commas(node.tail_entries) + " via tail call)";
  line(out, node.calls ? with_commas(*node.calls) : "-", with_commas(node.samples), with_commas(node.cpu_samples),
       ms(node.total_ns), ms(node.self_ns), percent, depth, label);

  std::vector<const ReportNode*> children;
  for (const auto& c : node.children) children.push_back(&c);
  std::stable_sort(children.begin(), children.end(),
                   [&](const ReportNode* a, const ReportNode* b) { return weight.of(*a) > weight.of(*b); });
  uint64_t folded = 0, folded_calls = 0, folded_weight = 0;
  for (const ReportNode* child : children) {
    double child_percent = thread_weight ? 100.0 * double(weight.of(*child)) / double(thread_weight) : 0.0;
    if (child_percent < min_percent && child->kind() != "marker") {  // a cut in the tree is always shown
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
    line(out, folded_calls ? with_commas(folded_calls) : "", "", "", weight.by_time ? ms(folded_weight) : "", "",
         percent_folded, depth + 1, label_buf);
  }
}

// " prefix.name=count" for each count that is not 0.
std::string nonzero(const std::optional<NamedCounts>& counts, const std::string& prefix = "",
                    std::string_view left_out = "") {
  std::string parts;
  if (counts)
    for (const auto& [name, count] : *counts)
      if (count > 0 && name != left_out) parts += " " + prefix + display_text(name) + "=" + with_commas(count);
  return parts;
}

// "98.4%" of the managed frames checked that agreed (all of none).
std::string agreeing_share(uint64_t agreed, uint64_t frames) {
  char share[16];
  std::snprintf(share, sizeof share, "%.1f%%", frames ? 100.0 * double(agreed) / double(frames) : 100.0);
  return share;
}

// A thread's name as the text report shows it: quoted, or "(unnamed)".
std::string shown_name(const ReportThread& thread) {
  return thread.name ? "\"" + display_text(*thread.name) + "\"" : "(unnamed)";
}

}  // namespace

std::string signal_walk_check_line(const ReportStats& stats) {
  const auto& s = stats.sampler;
  if (!s || !s->walks_checked) return "";
  uint64_t frames = s->walk_frames_checked.value_or(0), agreed = s->walk_frames_agreed.value_or(0);
  std::string share = agreeing_share(agreed, frames);
  std::string differences = nonzero(s->walk_differences);
  std::string fallback;
  if (s->threads_sampled_by_snapshot.value_or(0) > 0)
    fallback = "; " + with_commas(*s->threads_sampled_by_snapshot) +
               " threads whose stacks by signal kept differing sampled from snapshot walks instead (" +
               with_commas(s->samples_by_snapshot.value_or(0)) + " samples)";
  return "stacks by signal checked against the runtime's walks: " + with_commas(*s->walks_checked) + " walks, " +
         share + " of " + with_commas(frames) + " managed frames agree; walks that differ:" +
         (differences.empty() ? std::string(" none") : differences) + fallback;
}

std::vector<std::string> thread_walk_check_lines(const Report& report) {
  std::vector<std::string> lines;
  for (const ReportThread& thread : report.threads) {
    uint64_t frames = thread.walk_frames_checked.value_or(0), agreed = thread.walk_frames_agreed.value_or(0);
    if (!thread.walks_checked || agreed >= frames) continue;
    lines.push_back("thread " + shown_name(thread) + " os tid " + std::to_string(thread.os_tid) + ": " +
                    with_commas(*thread.walks_checked) + " walks, " + agreeing_share(agreed, frames) + " of " +
                    with_commas(frames) +
                    " managed frames agree" +
                    (thread.sampled_by_snapshot ? "; sampled from snapshot walks since" : ""));
  }
  return lines;
}

std::string stacks_incomplete_line(const ReportStats& stats) {
  const auto& s = stats.sampler;
  if (!s || !s->incomplete_stacks) return "";
  uint64_t samples = 0;
  for (const auto& [name, count] : *s->incomplete_stacks) samples += count;
  if (samples == 0) return "";
  return "stacks incomplete: " + with_commas(samples) + " samples under " + kStackIncomplete +
         ", their walk stopped short of the thread's start:" + nonzero(s->incomplete_stacks);
}

namespace {

// The same drops as the exit line's "not captured" (the hooks' and the sampler's; the samples outside managed code
// on a line of their own), then shadow mode's reconciliation.
std::string stats_lines(const ReportStats& stats) {
  std::string drops = nonzero(stats.drops) +
                      (stats.sampler ? nonzero(stats.sampler->drops, "sampler.", kOutsideManagedCode) : "");
  std::string out;
  if (stats.hooks_for)
    out += "hooks for " + display_text(*stats.hooks_for) + ": " + with_commas(stats.methods_hooked.value_or(0)) +
           " methods hooked (exact calls), " + with_commas(stats.methods_not_hooked.value_or(0)) +
           " not (samples only), " + with_commas(stats.inlining_refused.value_or(0)) + " inlinings refused, " +
           (stats.precompiled.value_or("jit") == "keep" ? "precompiled code kept" : "everything JIT-compiled") +
           (stats.compiled_without_hooks.value_or(0)
                ? "; " + with_commas(*stats.compiled_without_hooks) +
                      " hooked methods compiled without hooks while a module loaded (their calls are undercounted)"
                : "") +
           "; exact calls of more: --hooks-for PATTERNS or all\n";
  out += "not captured:" + (drops.empty() ? std::string(" nothing") : drops) + "\n";
  if (uint64_t outside = samples_outside_managed_code(stats))
    out += "outside managed code: " + with_commas(outside) + " samples of threads with no managed frame (sampler." +
           kOutsideManagedCode + ")\n";
  if (std::string incomplete = stacks_incomplete_line(stats); !incomplete.empty()) out += incomplete + "\n";
  if (std::string walks = signal_walk_check_line(stats); !walks.empty()) out += walks + "\n";
  if (const auto& r = stats.reconcile) {
    auto or_none = [](const std::string& parts) { return parts.empty() ? std::string(" none") : parts; };
    out += "reconciled: " + with_commas(r->snapshots.value_or(0)) + " snapshots, " +
           with_commas(r->frames_compared.value_or(0)) + " frames compared, " +
           with_commas(r->unexplained.value_or(0)) + " unexplained; repairs:" + or_none(nonzero(r->repairs)) +
           "; spliced:" + or_none(nonzero(r->spliced)) + "\n";
  }
  return out;
}

// "period 3: " for a periodic report (its duration follows), else "".
std::string period_of(const ReportStats& stats) {
  return stats.period && stats.period->index ? "period " + std::to_string(*stats.period->index) + ": " : "";
}

}  // namespace

// Header lines are built as strings, not in fixed buffers: they hold names, and a long one must not cut the line.
std::string report_to_text(const Report& report, double min_percent) {
  std::string umbra = report.umbra_version.empty() ? "umbra " : "umbra " + display_text(report.umbra_version) + " ";
  std::string out = umbra + display_text(report.mode) + " profile of pid " + std::to_string(report.pid) +
                    " (runtime " + display_text(report.runtime) + "), " + period_of(report.stats) +
                    three_decimals(double(report.duration_ns) / 1e9) + " s, " +
                    std::to_string(report.threads.size()) + " threads\n";
  out += stats_lines(report.stats);
  // After the counts, which keep their lines (the second and third) for whoever reads them.
  if (!report.program.empty() || !report.command_line.empty())
    out += "program: " + display_text(report.program) + "  command line: " +
           display_command_line(report.command_line) + "\n";

  for (const ReportThread& thread : report.threads) {
    bool by_time = report.mode == "shadow" && thread_total_ns(thread) > 0;
    uint64_t samples = thread_samples(thread);
    Weight weight{by_time, samples ? double(thread_total_ns(thread)) / double(samples) : 0.0};
    uint64_t thread_weight = by_time ? thread_total_ns(thread) : samples;
    std::string name = shown_name(thread);
    // Sampled mode measures no calls or times: its threads are their samples and the CPU time they used.
    std::string exact = by_time ? "  " + with_commas(thread_calls(thread)) + " calls  " + ms(thread_total_ns(thread)) +
                                      " ms"
                                : "";
    std::string cpu_time = thread.cpu_ns ? "  CPU " + three_decimals(double(*thread.cpu_ns) / 1e9) + " s" : "";
    out += "\n=== thread " + name + "  os tid " + std::to_string(thread.os_tid) +
           (thread.exited ? "  (exited)" : "") + (thread.sampled_by_snapshot ? "  (sampled from snapshot walks)" : "") +
           exact + "  " + with_commas(thread_samples(thread)) + " samples, " +
           with_commas(thread_cpu_samples(thread)) + " on CPU" + cpu_time + " ===\n";
    // The columns of line(): calls, samples, those on a CPU, total ms, self ms, the share of the thread, then the
    // method.
    out += "        calls   samples    on cpu     total ms      self ms  thread  method\n";
    std::vector<const ReportNode*> roots;
    for (const auto& r : thread.roots) roots.push_back(&r);
    std::stable_sort(roots.begin(), roots.end(),
                     [&](const ReportNode* a, const ReportNode* b) { return weight.of(*a) > weight.of(*b); });
    for (const ReportNode* root : roots) write_node(out, *root, 0, thread_weight, min_percent, weight);
  }
  return out;
}

}  // namespace umbra
