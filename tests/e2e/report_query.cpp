#include "report_query.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "report/json_parser.h"

namespace umbra::testing {

JsonValue load_report(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return parse_json(buffer.str());
}

const JsonValue::Array& threads_of(const JsonValue& report) { return report.find("threads")->as_array(); }
const JsonValue::Array& roots_of(const JsonValue& thread) { return thread.find("roots")->as_array(); }
const JsonValue::Array& children_of(const JsonValue& node) { return node.find("children")->as_array(); }
std::string name_of(const JsonValue& node) { return node.find("name")->as_string(); }
uint64_t calls_of(const JsonValue& node) {
  const JsonValue* c = node.find("calls");
  return c && c->is_number() ? c->as_uint() : 0;
}

const JsonValue* find_path(const JsonValue& thread, const std::vector<std::string>& path) {
  const JsonValue::Array* level = &roots_of(thread);
  const JsonValue* found = nullptr;
  for (const auto& name : path) {
    found = nullptr;
    for (const auto& n : *level) {
      if (name_of(n) == name) {
        found = &n;
        break;
      }
    }
    if (!found) return nullptr;
    level = &children_of(*found);
  }
  return found;
}

const JsonValue* find_anywhere(const JsonValue::Array& nodes, const std::string& name) {
  for (const auto& n : nodes) {
    if (name_of(n) == name) return &n;
    if (const JsonValue* deeper = find_anywhere(children_of(n), name)) return deeper;
  }
  return nullptr;
}

uint64_t total_calls(const JsonValue::Array& nodes, const std::string& name) {
  uint64_t total = 0;
  for (const auto& n : nodes) {
    if (name_of(n) == name) total += calls_of(n);
    total += total_calls(children_of(n), name);
  }
  return total;
}

const JsonValue* thread_with_root(const JsonValue& report, const std::string& entry) {
  for (const auto& t : threads_of(report))
    for (const auto& r : roots_of(t))
      if (name_of(r) == entry) return &t;
  return nullptr;
}

const JsonValue* thread_named(const JsonValue& report, const std::string& name) {
  for (const auto& t : threads_of(report)) {
    const JsonValue* n = t.find("name");
    if (n && n->is_string() && n->as_string() == name) return &t;
  }
  return nullptr;
}

namespace {
void visit_all(const JsonValue::Array& nodes, const std::function<void(const JsonValue&)>& visit) {
  for (const auto& n : nodes) {
    visit(n);
    visit_all(children_of(n), visit);
  }
}
}  // namespace

namespace {
void visit_paths(const JsonValue& node, std::vector<const JsonValue*>& path,
                 const std::function<void(const std::vector<const JsonValue*>&)>& visit) {
  path.push_back(&node);
  visit(path);
  for (const auto& c : children_of(node)) visit_paths(c, path, visit);
  path.pop_back();
}
uint64_t outermost_samples_in(const JsonValue::Array& nodes,
                              const std::function<bool(const std::string& name)>& matches) {
  uint64_t total = 0;
  for (const auto& n : nodes) total += matches(name_of(n)) ? samples_of(n) : outermost_samples_in(children_of(n), matches);
  return total;
}

}  // namespace

uint64_t outermost_samples(const JsonValue& thread, const std::function<bool(const std::string& name)>& matches) {
  return outermost_samples_in(roots_of(thread), matches);
}

void for_each_path(const JsonValue& thread,
                   const std::function<void(const std::vector<const JsonValue*>& path)>& visit) {
  std::vector<const JsonValue*> path;
  for (const auto& r : roots_of(thread)) visit_paths(r, path, visit);
}

uint64_t samples_of(const JsonValue& node) { return node.find("samples")->as_uint(); }

void for_each_node(const JsonValue& report, const std::function<void(const JsonValue& node)>& visit) {
  for (const auto& t : threads_of(report)) visit_all(roots_of(t), visit);
}

}  // namespace umbra::testing
