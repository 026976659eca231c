#include "report/report_reader.h"

namespace umbra {
namespace {

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw ReportFormatError(where + ": " + what);
}

const JsonValue& member(const JsonValue& object, const char* key, const std::string& where) {
  const JsonValue* v = object.find(key);
  if (v == nullptr) fail(where, std::string("missing \"") + key + "\"");
  return *v;
}

std::string string_of(const JsonValue& object, const char* key, const std::string& where) {
  const JsonValue& v = member(object, key, where);
  if (!v.is_string()) fail(where + "." + key, "not a string");
  return v.as_string();
}

uint64_t count_of(const JsonValue& v, const std::string& where) {
  if (!v.is_number() || v.as_double() < 0) fail(where, "not a non-negative number");
  return v.as_uint();
}

std::optional<uint64_t> optional_count(const JsonValue& object, const char* key, const std::string& where) {
  const JsonValue* v = object.find(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  return count_of(*v, where + "." + key);
}

const JsonValue::Array& array_of(const JsonValue& object, const char* key, const std::string& where) {
  const JsonValue& v = member(object, key, where);
  if (!v.is_array()) fail(where + "." + key, "not an array");
  return v.as_array();
}

ReportNode node_from(const JsonValue& v, const std::string& where) {
  if (!v.is_object()) fail(where, "not an object");
  ReportNode n;
  n.name = string_of(v, "name", where);
  if (const JsonValue* kind = v.find("kind"); kind && kind->is_string()) n.kind = kind->as_string();
  if (const JsonValue* module = v.find("module"); module && module->is_string()) n.module = module->as_string();
  n.calls = optional_count(v, "calls", where);
  n.total_ns = optional_count(v, "total_ns", where);
  n.self_ns = optional_count(v, "self_ns", where);
  n.samples = optional_count(v, "samples", where).value_or(0);
  n.self_samples = optional_count(v, "self_samples", where).value_or(0);
  n.tail_entries = optional_count(v, "tail_entries", where).value_or(0);
  const auto& children = array_of(v, "children", where);
  n.children.reserve(children.size());
  for (size_t i = 0; i < children.size(); ++i)
    n.children.push_back(node_from(children[i], where + ".children[" + std::to_string(i) + "]"));
  return n;
}

}  // namespace

Report report_from_json(const JsonValue& doc) {
  if (!doc.is_object()) fail("document", "not a JSON object");
  const JsonValue* schema = doc.find("schema");
  if (schema == nullptr || !schema->is_string() || schema->as_string() != kReportSchema)
    fail("schema", std::string("not \"") + kReportSchema + "\" (is this an umbra report?)");
  Report r;
  r.mode = string_of(doc, "mode", "document");
  if (const JsonValue* pid = doc.find("pid"); pid && pid->is_number()) r.pid = pid->as_int();
  if (const JsonValue* runtime = doc.find("runtime"); runtime && runtime->is_string()) r.runtime = runtime->as_string();
  r.duration_ns = optional_count(doc, "duration_ns", "document").value_or(0);
  const auto& threads = array_of(doc, "threads", "document");
  for (size_t t = 0; t < threads.size(); ++t) {
    std::string where = "threads[" + std::to_string(t) + "]";
    const JsonValue& v = threads[t];
    if (!v.is_object()) fail(where, "not an object");
    ReportThread thread;
    thread.os_tid = optional_count(v, "os_tid", where).value_or(0);
    thread.managed_id = optional_count(v, "managed_id", where);
    if (const JsonValue* name = v.find("name"); name && name->is_string()) thread.name = name->as_string();
    if (const JsonValue* exited = v.find("exited"); exited && exited->is_bool()) thread.exited = exited->as_bool();
    thread.managed_samples = optional_count(v, "managed_samples", where);
    thread.native_samples = optional_count(v, "native_samples", where);
    const auto& roots = array_of(v, "roots", where);
    for (size_t i = 0; i < roots.size(); ++i)
      thread.roots.push_back(node_from(roots[i], where + ".roots[" + std::to_string(i) + "]"));
    r.threads.push_back(std::move(thread));
  }
  if (const JsonValue* stats = doc.find("stats"); stats && stats->is_object()) r.stats = *stats;
  return r;
}

}  // namespace umbra
