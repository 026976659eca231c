#include "report_query.h"

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "report/json_parser.h"

namespace umbra::testing {

namespace {

JsonValue* member(JsonValue& object, std::string_view key) {
  for (auto& [k, v] : object.as_object())
    if (k == key) return &v;
  return nullptr;
}

// umbra-report/4 (and /3, /2) names each method once, in "frames", and writes a thread's nodes as numbers in
// pre-order: /4 each node an array without its trailing zeros, /3 and /2 all of them in one flat array. The tests ask
// their questions of nodes as objects (name, module, kind, the fields by name, children): this reads the numbers as
// the schema says, independently of umbra's own reader. Iterative: deep trees take no stack.
JsonValue::Array nodes_as_objects(const JsonValue::Array& values, const JsonValue& doc) {
  const auto& frames = doc.find("frames")->as_array();
  const auto& fields = doc.find("node_fields")->as_array();
  const size_t width = fields.size();
  const bool arrays = doc.find("schema")->as_string() == "umbra-report/4";
  if (width < 2 || (!arrays && values.size() % width != 0)) throw std::runtime_error("nodes do not fit node_fields");
  const size_t count = arrays ? values.size() : values.size() / width;
  auto field = [&](size_t node, size_t f) -> JsonValue {
    if (!arrays) return values[node * width + f];
    const JsonValue::Array& given = values[node].as_array();
    if (given.size() < 2 || given.size() > width) throw std::runtime_error("a node of 2 to node_fields numbers");
    return f < given.size() ? given[f] : JsonValue(uint64_t{0});
  };
  struct Open {
    JsonValue node;
    uint64_t children_left;
  };
  std::vector<Open> open;
  JsonValue::Array roots;
  auto close_finished = [&] {
    while (!open.empty() && open.back().children_left == 0) {
      JsonValue done = std::move(open.back().node);
      open.pop_back();
      if (open.empty()) roots.push_back(std::move(done));
      else member(open.back().node, "children")->push(std::move(done));
    }
  };
  for (size_t i = 0; i < count; ++i) {
    const JsonValue::Array& frame = frames.at(field(i, 0).as_uint()).as_array();
    JsonValue node = JsonValue::object();
    node.set("name", frame.at(0));
    node.set("module", frame.at(1));
    node.set("kind", frame.at(2));
    for (size_t f = 2; f < width; ++f) node.set(fields[f].as_string(), field(i, f));
    node.set("children", JsonValue::array());
    if (!open.empty()) --open.back().children_left;
    open.push_back({std::move(node), field(i, 1).as_uint()});
    close_finished();
  }
  if (!open.empty()) throw std::runtime_error("nodes end inside a node's children");
  return roots;
}

}  // namespace

JsonValue load_report(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  JsonValue doc = parse_json(buffer.str());
  if (doc.find("schema")->as_string() == "umbra-report/1") return doc;
  for (JsonValue& thread : member(doc, "threads")->as_array())
    thread.set("roots", nodes_as_objects(thread.find("nodes")->as_array(), doc));
  return doc;
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

std::vector<const JsonValue*> direct_chain(const JsonValue& node, const std::string& name) {
  std::vector<const JsonValue*> chain = {&node};
  for (;;) {
    const JsonValue* next = nullptr;
    for (const auto& c : children_of(*chain.back()))
      if (name_of(c) == name) next = &c;
    if (!next) return chain;
    chain.push_back(next);
  }
}

uint64_t total_calls(const JsonValue::Array& nodes, const std::string& name) {
  uint64_t total = 0;
  for (const auto& n : nodes) {
    if (name_of(n) == name) total += calls_of(n);
    total += total_calls(children_of(n), name);
  }
  return total;
}

uint64_t calls_in_all_threads(const JsonValue& report, const std::string& name) {
  uint64_t total = 0;
  for (const auto& thread : threads_of(report)) total += total_calls(roots_of(thread), name);
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
uint64_t cpu_samples_of(const JsonValue& node) { return node.find("cpu_samples")->as_uint(); }

uint64_t thread_samples_of(const JsonValue& thread) {
  uint64_t total = 0;
  for (const auto& r : roots_of(thread)) total += samples_of(r);
  return total;
}

uint64_t thread_cpu_samples_of(const JsonValue& thread) {
  uint64_t total = 0;
  for (const auto& r : roots_of(thread)) total += cpu_samples_of(r);
  return total;
}

void for_each_node(const JsonValue& report, const std::function<void(const JsonValue& node)>& visit) {
  for (const auto& t : threads_of(report)) visit_all(roots_of(t), visit);
}

}  // namespace umbra::testing
