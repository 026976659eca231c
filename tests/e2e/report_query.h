// Questions the end-to-end tests ask of a parsed umbra JSON report.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "report/json_value.h"

namespace umbra::testing {

JsonValue load_report(const std::string& path);

const JsonValue::Array& threads_of(const JsonValue& report);
const JsonValue::Array& roots_of(const JsonValue& thread);
const JsonValue::Array& children_of(const JsonValue& node);
std::string name_of(const JsonValue& node);
uint64_t calls_of(const JsonValue& node);

// The node reached by following `path` (names) from any root of `thread`, or nullptr.
const JsonValue* find_path(const JsonValue& thread, const std::vector<std::string>& path);
// The first node named `name` anywhere under `nodes` (depth-first), or nullptr.
const JsonValue* find_anywhere(const JsonValue::Array& nodes, const std::string& name);
// `node`, then its child named `name`, then that child's, and so on: the levels of a recursion, each directly
// under the one before.
std::vector<const JsonValue*> direct_chain(const JsonValue& node, const std::string& name);
// Calls of every node named `name` in the subtree of `nodes`, summed.
uint64_t total_calls(const JsonValue::Array& nodes, const std::string& name);
// The same over every thread of `report`.
uint64_t calls_in_all_threads(const JsonValue& report, const std::string& name);
// The main thread: the one whose roots include `entry` (e.g. "App.Program.Main").
const JsonValue* thread_with_root(const JsonValue& report, const std::string& entry);
const JsonValue* thread_named(const JsonValue& report, const std::string& name);
// Visits every node of `thread` with the path that leads to it (root first, the node last).
void for_each_path(const JsonValue& thread,
                   const std::function<void(const std::vector<const JsonValue*>& path)>& visit);
uint64_t samples_of(const JsonValue& node);
uint64_t cpu_samples_of(const JsonValue& node);
// Samples (or CPU samples) of a whole thread: its roots' summed.
uint64_t thread_samples_of(const JsonValue& thread);
uint64_t thread_cpu_samples_of(const JsonValue& thread);
// Samples of `thread` under its outermost frames whose names `matches` (frames nested in those are not counted
// again).
uint64_t outermost_samples(const JsonValue& thread, const std::function<bool(const std::string& name)>& matches);
// Visits every node of every thread.
void for_each_node(const JsonValue& report, const std::function<void(const JsonValue& node)>& visit);

}  // namespace umbra::testing
