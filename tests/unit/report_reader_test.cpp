#include "report/report_reader.h"

#include <gtest/gtest.h>

#include <new>
#include <string>

#include "address_space_limit.h"
#include "report/json_parser.h"
#include "report/json_writer.h"
#include "report_fixture.h"

namespace umbra {
namespace {

TEST(ReportReader, ReadsWhatTheWriterWrote) {
  Report original = testing::known_report();
  original.runtime_frames = RuntimeFrames::kKeep;  // not the default: read, not assumed
  Report back = report_from_json(parse_json(report_to_json(original)));
  EXPECT_EQ(report_to_json(back), report_to_json(original));
}

// Files earlier versions wrote (umbra-report/1: each node an object with its name) still load, to the same report.
TEST(ReportReader, ReadsTheFirstSchema) {
  const char* v1 = R"({"schema":"umbra-report/1","mode":"shadow","pid":42,"runtime":"10.0.0","duration_ns":2000000000,
    "threads":[{"os_tid":43,"managed_id":null,"name":null,"exited":true,"managed_samples":null,"native_samples":null,
    "roots":[{"name":"App.Worker.Run","kind":"managed","module":"App.dll","calls":1,"samples":0,"self_samples":0,
              "total_ns":5000000,"self_ns":4000000,"tail_entries":0,"children":[
               {"name":"App.Worker.Step","kind":"managed","module":"App.dll","calls":2,"samples":0,"self_samples":0,
                "total_ns":1000000,"self_ns":1000000,"tail_entries":1,"children":[]}]}]}],
    "stats":{"enter_hooks":3}})";
  Report expected;
  expected.pid = 42;
  expected.runtime = "10.0.0";
  expected.duration_ns = 2'000'000'000;
  ReportThread worker;
  worker.os_tid = 43;
  worker.exited = true;
  worker.roots.push_back(testing::node("App.Worker.Run", 1, 5'000'000, 4'000'000,
                                       {testing::node("App.Worker.Step", 2, 1'000'000, 1'000'000)}));
  worker.roots[0].children[0].tail_entries = 1;
  expected.threads.push_back(worker);
  expected.stats.enter_hooks = 3;
  EXPECT_EQ(report_to_json(report_from_json(parse_json(v1))), report_to_json(expected));
}

TEST(ReportReader, SaysWhereADocumentIsWrong) {
  auto error_of = [](const char* text) {
    try {
      report_from_json(parse_json(text));
    } catch (const ReportFormatError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("[]"), "document: not a JSON object");
  EXPECT_EQ(error_of(R"({"schema":"x"})"),
            "schema: not \"umbra-report/4\", \"umbra-report/3\", \"umbra-report/2\" or \"umbra-report/1\" (is this an "
            "umbra report?)");
  EXPECT_EQ(error_of(R"({"schema":"umbra-report/1","mode":"shadow","threads":{}})"),
            "document.threads: not an array");
  EXPECT_EQ(error_of(R"({"schema":"umbra-report/1","mode":"shadow","threads":[{"roots":[{"name":"a"}]}]})"),
            "threads[0].roots[0]: missing \"children\"");
  const std::string v2 = R"({"schema":"umbra-report/2","mode":"shadow","node_fields":["frame","children","calls",)"
                         R"("samples","self_samples","total_ns","self_ns","tail_entries"],)"
                         R"("frames":[["a","m","managed"]],)";
  auto nodes = [&](const char* values) { return error_of((v2 + R"("threads":[{"nodes":)" + values + "}]}").c_str()); };
  EXPECT_EQ(nodes("[0,0,1,0,0,1,1,0]"), "no error");
  EXPECT_EQ(nodes("[1,0,1,0,0,1,1,0]"), "threads[0].nodes[0].frame: no such frame");
  EXPECT_EQ(nodes("[0,1,1,0,0,1,1,0]"), "threads[0].nodes[0].children: more than the nodes that follow");
  EXPECT_EQ(nodes("[0,2,1,0,0,1,1,0,0,0,1,0,0,1,1,0]"),
            "threads[0].nodes[0].children: more than the nodes that follow");
  // The first node wants two children, the second takes the third as its own: the first's second cannot come.
  EXPECT_EQ(nodes("[0,2,1,0,0,1,1,0,0,1,1,0,0,1,1,0,0,0,1,0,0,1,1,0]"),
            "threads[0].nodes[1].children: more than the nodes that follow less the 1 still owed to the nodes it "
            "is in");
  EXPECT_EQ(nodes("[0,0,1,0,0,1,1]"), "threads[0].nodes: not 8 numbers per node");
  EXPECT_EQ(nodes("[0,0,-1,0,0,1,1,0]"),
            "threads[0].nodes[0].calls: not a whole number from 0 to 18446744073709551615");
  EXPECT_EQ(nodes("[null,0,1,0,0,1,1,0]"), "threads[0].nodes[0].frame: null");
  EXPECT_EQ(error_of(R"({"schema":"umbra-report/2","mode":"shadow","node_fields":["frame"],"frames":[],)"
                     R"("threads":[]})"),
            "node_fields: not the fields this umbra reads (frame, children, calls, samples, ...)");
  // /4: each node an array of 2 to 10 numbers.
  const std::string v4 = R"({"schema":"umbra-report/4","mode":"shadow","node_fields":["frame","children","calls",)"
                         R"("samples","self_samples","total_ns","self_ns","tail_entries","cpu_samples",)"
                         R"("self_cpu_samples"],"frames":[["a","m","managed"]],)";
  auto arrays = [&](const char* values) { return error_of((v4 + R"("threads":[{"nodes":)" + values + "}]}").c_str()); };
  EXPECT_EQ(arrays("[[0,1,5],[0,0]]"), "no error");
  EXPECT_EQ(arrays("[[0,0,1,0,0,1,1,0,0,0]]"), "no error");
  EXPECT_EQ(arrays("[[0]]"), "threads[0].nodes[0]: not an array of 2 to 10 numbers");
  EXPECT_EQ(arrays("[[0,0,1,0,0,1,1,0,0,0,0]]"), "threads[0].nodes[0]: not an array of 2 to 10 numbers");
  EXPECT_EQ(arrays("[0,0]"), "threads[0].nodes[0]: not an array of 2 to 10 numbers");
  EXPECT_EQ(arrays("[[0,1]]"), "threads[0].nodes[0].children: more than the nodes that follow");
  EXPECT_EQ(arrays("[[0,0,1,-2]]"), "threads[0].nodes[0].samples: not a whole number from 0 to 18446744073709551615");
  EXPECT_EQ(arrays("[[0,null]]"), "threads[0].nodes[0].children: null");
}

// umbra-report/4 nodes each of which claims every node after it as its children: each is in fact the only child of
// the one before, and the second's claim and the one the first still waits for add up to more nodes than follow.
// After "schema", a member the streaming reader does not expect first, so that the general reader reads it.
std::string claims_on_every_following_node(size_t nodes) {
  std::string text = R"({"mode":"shadow","schema":"umbra-report/4","node_fields":["frame","children","calls",)"
                     R"("samples","self_samples","total_ns","self_ns","tail_entries","cpu_samples",)"
                     R"("self_cpu_samples"],"frames":[["f","m","managed"]],"threads":[{"os_tid":1,"nodes":[)";
  for (size_t i = 0; i < nodes; ++i) text += (i ? ",[0," : "[0,") + std::to_string(nodes - 1 - i) + "]";
  return text + "]}]}";
}

TEST(ReportReader, ChildrenOwedToAnEnclosingNodeCountAgainstTheNodesThatFollow) {
  try {
    load_report_from_text(claims_on_every_following_node(5));
    ADD_FAILURE() << "read";
  } catch (const ReportFormatError& e) {
    EXPECT_STREQ(e.what(),
                 "threads[0].nodes[1].children: more than the nodes that follow less the 3 still owed to the nodes it "
                 "is in");
  }
}

// Room for a node's children is reserved as its claim is read. Checked against the nodes that follow alone, the
// claims above reserved room for N * N / 2 nodes, 120 bytes each: 24 GB of address space for these 20,000 nodes
// (190 KB of text), where the reader now takes at most room for twice the nodes, and refuses the claim.
TEST(ReportReader, ReservationsForClaimedChildrenAreLinearInTheNodes) {
  if (!testing::kAddressSpaceLimitWorks) GTEST_SKIP() << "no address-space limit under ASan or TSan";
  const std::string text = claims_on_every_following_node(20000);
  int status = testing::run_under_address_space_limit(size_t(256) << 20, [&] {
    try {
      load_report_from_text(text);
    } catch (const ReportFormatError&) {
      return 0;
    } catch (const std::bad_alloc&) {
      return 1;
    }
    return 2;
  });
  EXPECT_EQ(status, 0) << "1: out of memory under a limit of 256 MiB more than was mapped";
}

// /4 leaves out a node's trailing zeros: read back, they are zeros, and a null before them stays null.
TEST(ReportReader, SchemaFourNodesEndWithZerosLeftOut) {
  const char* text = R"({"schema":"umbra-report/4","mode":"sampled","node_fields":["frame","children","calls",)"
                     R"("samples","self_samples","total_ns","self_ns","tail_entries","cpu_samples",)"
                     R"("self_cpu_samples"],"frames":[["a","m","managed"],["b","m","native"]],)"
                     R"("threads":[{"os_tid":1,"nodes":[[0,1,null,9,0,null],[1,0,null,9,9,null,null,0,3,3]]}]})";
  Report r = report_from_json(parse_json(text));
  ASSERT_EQ(r.threads.size(), 1u);
  ASSERT_EQ(r.threads[0].roots.size(), 1u);
  const ReportNode& a = r.threads[0].roots[0];
  EXPECT_FALSE(a.calls.has_value());
  EXPECT_FALSE(a.total_ns.has_value());
  EXPECT_EQ(a.self_ns, 0u);  // left out: a zero, not null
  EXPECT_EQ(a.samples, 9u);
  EXPECT_EQ(a.cpu_samples, 0u);
  ASSERT_EQ(a.children.size(), 1u);
  EXPECT_EQ(a.children[0].frame->name, "b");
  EXPECT_EQ(a.children[0].self_cpu_samples, 3u);
}

}  // namespace
}  // namespace umbra
