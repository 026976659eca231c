#include "report/html_writer.h"

#include <cinttypes>
#include <cstdio>
#include <unordered_map>
#include <vector>

#include "report/json_value.h"
#include "util/decimal.h"

namespace umbra {

extern const char* const kHtmlTemplate;  // generated from html_report.html

namespace {

class Strings {
 public:
  size_t index(const std::string& s) {
    auto [it, inserted] = index_.emplace(s, list_.size());
    if (inserted) list_.push_back(&it->first);
    return it->second;
  }
  void write(std::string& out) const {
    out += '[';
    for (size_t i = 0; i < list_.size(); ++i) {
      if (i) out += ',';
      append_json_string(out, *list_[i]);
    }
    out += ']';
  }

 private:
  std::unordered_map<std::string, size_t> index_;
  std::vector<const std::string*> list_;
};

void number(std::string& out, std::optional<uint64_t> v) {
  if (v) append_decimal(out, *v);
  else out += "-1";
}

// Rows in preorder, iteratively: trees can be as deep as the deepest call stack.
void flatten(const ReportNode& root, Strings& strings, std::string& out, size_t& count) {
  std::vector<std::pair<const ReportNode*, long>> stack = {{&root, -1}};
  while (!stack.empty()) {
    auto [node, parent] = stack.back();
    stack.pop_back();
    long self = long(count++);
    if (self > 0) out += ',';
    out += '[';
    out += std::to_string(parent);
    out += ',' + std::to_string(strings.index(node->name()));
    out += ',' + std::to_string(strings.index(node->module()));
    out += node->kind() == "native" ? ",1" : ",0";
    for (std::optional<uint64_t> v : {node->calls, node->total_ns, node->self_ns, std::optional(node->samples),
                                      std::optional(node->self_samples), std::optional(node->tail_entries),
                                      std::optional(node->cpu_samples), std::optional(node->self_cpu_samples)}) {
      out += ',';
      number(out, v);
    }
    out += ']';
    for (auto it = node->children.rbegin(); it != node->children.rend(); ++it) stack.push_back({&*it, self});
  }
}

}  // namespace

std::string report_to_html(const Report& report) {
  Strings strings;
  std::string nodes, threads;
  size_t count = 0;
  for (size_t t = 0; t < report.threads.size(); ++t) {
    const ReportThread& thread = report.threads[t];
    size_t first = count;
    for (const auto& root : thread.roots) flatten(root, strings, nodes, count);
    if (t) threads += ',';
    threads += "{\"name\":";
    if (thread.name) append_json_string(threads, *thread.name);
    else threads += "null";
    threads += ",\"tid\":" + std::to_string(thread.os_tid) + ",\"first\":" + std::to_string(first) +
               ",\"count\":" + std::to_string(count - first) + ",\"samples\":" +
               std::to_string(thread_samples(thread)) + ",\"cpu\":" + std::to_string(thread_cpu_samples(thread)) +
               ",\"cpu_ns\":";
    number(threads, thread.cpu_ns);
    threads += "}";
  }
  std::string data = "{\"mode\":";
  append_json_string(data, report.mode);
  data += ",\"pid\":" + std::to_string(report.pid) + ",\"duration_ns\":" + std::to_string(report.duration_ns);
  data += ",\"strings\":";
  strings.write(data);
  data += ",\"threads\":[" + threads + "],\"nodes\":[" + nodes + "]}";
  // Inside <script>, "</script" would end the element and "<!--" would keep the page's script from running: the
  // data holds no '<' (nor '>' or '&') at all. They only occur inside JSON strings, where \u003c is the same text.
  std::string safe;
  safe.reserve(data.size());
  for (char c : data) {
    if (c == '<') safe += "\\u003c";
    else if (c == '>') safe += "\\u003e";
    else if (c == '&') safe += "\\u0026";
    else safe += c;
  }
  std::string page = kHtmlTemplate;
  const std::string marker = "/*UMBRA_DATA*/";
  page.replace(page.find(marker), marker.size(), safe);
  return page;
}

}  // namespace umbra
