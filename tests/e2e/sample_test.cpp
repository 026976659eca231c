// The sample that tools/demo.sh profiles: a real mix of framework code (System.Text.Json, LINQ, SHA256) and threads.
#include <gtest/gtest.h>

#include "e2e_env.h"
#include "process.h"
#include "report_query.h"

namespace umbra::testing {
namespace {

TEST(Sample, OrderServiceProfile) {
  std::string dir = scratch_dir("sample");
  ProcessResult plain = run_process(app_command("OrderService"));
  ProcessResult r = run_process(with_app({launcher_path(), "run", "-o", dir + "/r", "--"}, "OrderService"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, plain.out);
  JsonValue report = load_report(dir + "/r.json");
  const JsonValue* main = thread_with_root(report, "OrderService.Program.Main");
  ASSERT_NE(main, nullptr);
  // Exact: one Pricing.Total per order, one receipt hash per order across the two named workers.
  EXPECT_EQ(total_calls(roots_of(*main), "OrderService.Pricing.Total"), 1500u);
  EXPECT_NE(find_path(*main, {"OrderService.Program.Main", "OrderService.Feed.Generate",
                              "System.Text.Json.JsonSerializer.Serialize"}),
            nullptr);
  uint64_t hashes = 0;
  for (const char* worker : {"receipt-worker-1", "receipt-worker-2"}) {
    const JsonValue* t = thread_named(report, worker);
    ASSERT_NE(t, nullptr) << worker;
    hashes += total_calls(roots_of(*t), "OrderService.Receipts.Hash");
  }
  EXPECT_EQ(hashes, 1500u);
  // Catalog.Grow recursion: 1 + 5 + 25 + 125 + 625 calls (the leaves return at depth 0).
  EXPECT_EQ(total_calls(roots_of(*main), "OrderService.Catalog.Grow"), 781u);
}

}  // namespace
}  // namespace umbra::testing
