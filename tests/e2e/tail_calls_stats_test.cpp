// TailCalls' self, mutual and helper chains in shadow mode: the hook counters and thread fields of the JSON report
// against the calls the program makes, and the runtime's tail-call dispatcher in the tree.
#include <gtest/gtest.h>

#include <set>

#include "e2e_env.h"
#include "process.h"
#include "report_query.h"

namespace umbra::testing {
namespace {

uint64_t stat(const JsonValue& report, const char* name) {
  const JsonValue* value = report.find("stats")->find(name);
  EXPECT_NE(value, nullptr) << "stats." << name;
  return value ? value->as_uint() : 0;
}

TEST(TailCallsStats, HookCountersThreadIdsAndTheDispatcher) {
  std::string dir = scratch_dir("tail_calls_stats");
  ProcessResult r = run_process(
      with_app({launcher_path(), "run", "--hooks-for", "all", "-o", dir + "/r", "--"}, "TailCalls",  // the dispatcher too
               {"self", "mutual", "helper"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  JsonValue report = load_report(dir + "/r.json");

  // SelfTail tail-calls itself 2,000,000 times, IsEven/IsOdd each other 1,000,000 times, and each of the 100,000
  // helper rounds is one tail call from HelperChain to HelperWide.
  const uint64_t tailcalls = stat(report, "tailcall_hooks");
  EXPECT_EQ(tailcalls, 2000000u + 1000000u + 100000u);
  // Every call ends in a leave, a tail call or an unwind; none is still open once Main has returned.
  const uint64_t enters = stat(report, "enter_hooks"), leaves = stat(report, "leave_hooks");
  EXPECT_GT(leaves, 0u);
  EXPECT_EQ(enters, leaves + tailcalls + stat(report, "exception_unwinds"));

  // Every managed name in the report was named once.
  std::set<std::string> managed;
  for_each_node(report, [&](const JsonValue& n) {
    if (n.find("kind")->as_string() == "managed") managed.insert(name_of(n));
  });
  EXPECT_GE(stat(report, "functions_named"), managed.size());
  // Names are read from the assemblies' files (names/assembly_metadata.h). Only the module TailCalls emits with
  // Reflection.Emit has no file: its five methods that run (SelfTail, IsEven, IsOdd, HelperChain, HelperWide) are
  // named through the runtime's metadata interface.
  EXPECT_EQ(stat(report, "functions_named_by_runtime"), 5u);
  EXPECT_GT(managed.size(), 100u);

  // Each thread has the runtime's own id, unique.
  std::set<uint64_t> ids;
  for (const JsonValue& thread : threads_of(report)) {
    const JsonValue* id = thread.find("managed_id");
    ASSERT_NE(id, nullptr);
    ASSERT_FALSE(id->is_null());
    EXPECT_GT(id->as_uint(), 0u);
    ids.insert(id->as_uint());
  }
  EXPECT_EQ(ids.size(), threads_of(report).size());

  // The helper chain's callee is called by the runtime's dispatcher, which is in the tree.
  const JsonValue* main = thread_with_root(report, "TailCalls.Program.Main");
  ASSERT_NE(main, nullptr);
  const JsonValue* dispatcher = find_path(*main, {"TailCalls.Program.Main", "TailCalls.Program.RunHelper",
                                                  "TailEmit.Chains.HelperChain",
                                                  "System.Runtime.CompilerServices.RuntimeHelpers.DispatchTailCalls"});
  ASSERT_NE(dispatcher, nullptr) << r.err;
  EXPECT_EQ(total_calls(children_of(*dispatcher), "TailEmit.Chains.HelperWide"), 100000u);
}

}  // namespace
}  // namespace umbra::testing
