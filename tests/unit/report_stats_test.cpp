#include "report/report_stats_json.h"

#include <gtest/gtest.h>

#include <ostream>

#include "report/json_parser.h"
#include "report/json_writer.h"
#include "report/report_reader.h"
#include "report_fixture.h"

namespace umbra {

void PrintTo(const NamedCount& c, std::ostream* os) { *os << c.name << '=' << c.count; }
void PrintTo(const ReportStats& s, std::ostream* os) { *os << stats_to_json(s).dump(2); }

namespace {

std::string written(const ReportStats& stats) { return stats_to_json(stats).dump(); }
ReportStats read(const std::string& json) { return stats_from_json(parse_json(json)); }

// The keys and their order are a contract: tests, scripts and users read them by name.
TEST(ReportStats, WritesEveryKeyInItsPlace) {
  EXPECT_EQ(written(testing::every_stat()),
            R"({"report_trigger":"shutdown","partial":false,"hook_family":"elt3","call_timing":"coarse_1ms",)"
            R"("hooks_for":"[App]*,!*.Tick","methods_hooked":44,"methods_not_hooked":45,"inlining_refused":46,)"
            R"("precompiled_refused":47,"precompiled":"keep","module_load_windows":48,"module_loads_with_hooks":49,)"
            R"("compiled_without_hooks":50,"load_window_waits_abandoned":51,)"
            R"("enter_hooks":1,"leave_hooks":2,"tailcall_hooks":3,"exception_unwinds":4,)"
            R"("recursive_tail_calls_counted":true,"drops":{"stack_overflow":5,"tree_full":0},)"
            R"("tree":{"nodes":36,"node_bytes":37,"node_bytes_max_thread":38,"node_bytes_limit":43,"slow_enters":39,)"
            R"("child_searches":40,)"
            R"("sibling_steps":41,"indexed_searches":42},)"
            R"("sampler":{"interval_ms":6,"ticks":7,"samples":8,"unchanged_samples":9,"above_hooks_samples":52,)"
            R"("shadow_only_samples":53,"suspensions":10,)"
            R"("suspended_ns_mean":11,"suspended_ns_max":12,"suspend_wait_ns_mean":13,"tick_ns_mean":14,)"
            R"("tick_ns_max":15,"cpu_ns_per_tick":16,"tick_late_ns_mean":88,"tick_late_ns_max":89,)"
            R"("snapshot_ns_mean":17,"shadow_sample_ns_mean":18,)"
            R"("native_tops":true,"abandoned_captures":19,"capture_cpu_ns_mean":68,"drops":{"suspend_failed":0,"no_frames":20},)"
            R"("incomplete_stacks":{"truncated":0,"no_frame_record":69},)"
      R"("walker":"signal","walks_checked":61,"walks_agreed":62,"walk_frames_checked":64,"walk_frames_agreed":63,)"
      R"("walk_differences":{"missing_leaf":65},"threads_sampled_by_snapshot":66,"samples_by_snapshot":67},)"
            R"("reconcile":{"snapshots":21,"frames_compared":22,"unexplained":23,"skipped_exception_in_flight":24,)"
            R"("skipped_truncated":25,"splices_lost":26,"unseen_top_frames":27,"repairs":{"missed_leave":28},)"
            R"("spliced":{"native_segment":29,"uninstrumented":0},)"
            R"("kept":{"stale_middle_frame":0,"invisible_frame":30}},)"
            R"("threads_created":31,"threads_destroyed":32,"threads_reported":33,"functions_named":34,)"
            R"("functions_named_by_runtime":90,)"
            R"("jit_compilations":35,"period":{"index":54,"start_unix_ns":55,"end_unix_ns":56},)"
            R"("push":{"pushed":57,"failed":58,"retries":59,"dropped":60,"abandoned":61,)"
            R"("first_failure":"Couldn't connect to server"}})");
}

// What the profiler writes, `umbra report` reads back: every field (the comparison is member by member, so a field
// missing from for_each_field fails it too).
TEST(ReportStats, ComeBackFromAReportsJsonFieldByField) {
  Report report = testing::known_report();
  report.stats = testing::every_stat();
  EXPECT_EQ(load_report_from_text(report_to_json(report)).stats, report.stats);
}

// A report from an older umbra lacks the keys added since: they stay absent, and nothing is invented for them.
TEST(ReportStats, AbsentKeysStayAbsent) {
  std::string old = R"({"report_trigger":"shutdown","drops":{"stack_overflow":1},"sampler":{"ticks":2}})";
  ReportStats stats = read(old);
  EXPECT_FALSE(stats.partial.has_value());
  EXPECT_FALSE(stats.reconcile.has_value());
  ASSERT_TRUE(stats.sampler.has_value());
  EXPECT_FALSE(stats.sampler->drops.has_value());
  EXPECT_EQ(written(stats), old);
  EXPECT_EQ(written(read("{}")), "{}");
  EXPECT_EQ(written(read("[1]")), "{}");  // not an object: no stats, as before
}

// A newer umbra's report loads: keys and drop reasons this one does not know are kept, and so is a value of a type
// it does not expect.
TEST(ReportStats, KeepsWhatItCannotRead) {
  ReportStats stats = read(R"({"drops":{"stack_overflow":1,"new_reason":2},"future":{"a":[1]},)"
                           R"("sampler":{"ticks":"many","samples":3},"partial":true})");
  EXPECT_EQ(stats.drops, (NamedCounts{{"stack_overflow", 1}, {"new_reason", 2}}));
  EXPECT_EQ(stats.partial, true);
  ASSERT_TRUE(stats.sampler.has_value());
  EXPECT_FALSE(stats.sampler->ticks.has_value());
  EXPECT_EQ(stats.sampler->samples, 3u);
  EXPECT_EQ(written(stats), R"({"partial":true,"drops":{"stack_overflow":1,"new_reason":2},)"
                            R"("sampler":{"samples":3,"ticks":"many"},"future":{"a":[1]}})");
}

// Counts are whole numbers: a list with anything else is kept as it was, not read.
TEST(ReportStats, ACountListWithABadCountIsKeptUnread) {
  ReportStats stats = read(R"({"drops":{"a":1,"b":-1,"c":1.5}})");
  EXPECT_FALSE(stats.drops.has_value());
  EXPECT_EQ(written(stats), R"({"drops":{"a":1,"b":-1,"c":1.5}})");
}

}  // namespace
}  // namespace umbra
