#include "report/json_writer.h"

#include <cinttypes>
#include <cstdio>

#include "report/report_stats_json.h"

namespace umbra {
namespace {

void append_uint(std::string& out, uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%" PRIu64, v);
  out += buf;
}

void append_optional(std::string& out, const std::optional<uint64_t>& v) {
  if (v) append_uint(out, *v);
  else out += "null";
}

void append_node(std::string& out, const ReportNode& node) {
  out += "{\"name\":";
  append_json_string(out, node.name);
  out += ",\"kind\":";
  append_json_string(out, node.kind);
  out += ",\"module\":";
  append_json_string(out, node.module);
  out += ",\"calls\":";
  append_optional(out, node.calls);
  out += ",\"samples\":";
  append_uint(out, node.samples);
  out += ",\"self_samples\":";
  append_uint(out, node.self_samples);
  out += ",\"total_ns\":";
  append_optional(out, node.total_ns);
  out += ",\"self_ns\":";
  append_optional(out, node.self_ns);
  out += ",\"tail_entries\":";
  append_uint(out, node.tail_entries);
  out += ",\"children\":[";
  for (size_t i = 0; i < node.children.size(); ++i) {
    if (i) out += ',';
    append_node(out, node.children[i]);
  }
  out += "]}";
}

}  // namespace

std::string report_to_json(const Report& report) {
  std::string out;
  out += "{\"schema\":";
  append_json_string(out, kReportSchema);
  out += ",\"mode\":";
  append_json_string(out, report.mode);
  out += ",\"pid\":";
  out += std::to_string(report.pid);
  out += ",\"runtime\":";
  append_json_string(out, report.runtime);
  out += ",\"duration_ns\":";
  append_uint(out, report.duration_ns);
  out += ",\"threads\":[";
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
    out += ",\"roots\":[";
    for (size_t i = 0; i < thread.roots.size(); ++i) {
      if (i) out += ',';
      append_node(out, thread.roots[i]);
    }
    out += "]}";
  }
  out += "],\n\"stats\":";
  out += stats_to_json(report.stats).dump();
  out += "}\n";
  return out;
}

}  // namespace umbra
