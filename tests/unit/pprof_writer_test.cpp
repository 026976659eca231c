#include "report/pprof_writer.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "pprof_decoder.h"
#include "report_fixture.h"
#include "util/large_stack.h"

namespace umbra {
namespace {

using testing::decode_profile;
using testing::DecodedProfile;
using Strings = std::vector<std::string>;

// The sample whose stack is `stack` (root first); fails the test if there is not exactly one.
const DecodedProfile::Sample& sample_at(const DecodedProfile& p, const Strings& stack) {
  const DecodedProfile::Sample* found = nullptr;
  for (const auto& s : p.samples)
    if (p.stack(s) == stack) {
      EXPECT_EQ(found, nullptr) << "two samples with one stack";
      found = &s;
    }
  if (!found) throw std::runtime_error("no sample with stack " + stack.back());
  return *found;
}

// As sampled mode writes it: no calls or times.
void forget_calls_and_times(std::vector<ReportNode>& nodes) {
  for (auto& n : nodes) {
    n.calls.reset();
    n.total_ns.reset();
    n.self_ns.reset();
    forget_calls_and_times(n.children);
  }
}

TEST(PprofWriter, ShadowModeHasSamplesCallsAndTimeEachNodesOwn) {
  Report r = testing::known_report();
  r.threads[0].roots[0].children[0].self_samples = 7;  // Hot
  r.threads[0].roots[0].children[0].samples = 7;
  r.threads[0].roots[0].samples = 7;
  DecodedProfile p = decode_profile(report_to_pprof(r));
  using Type = std::pair<std::string, std::string>;
  EXPECT_EQ(p.sample_types, (std::vector<Type>{{"samples", "count"}, {"calls", "count"}, {"time", "nanoseconds"}}));
  EXPECT_EQ(p.default_sample_type, "samples");
  EXPECT_EQ(p.duration_nanos, 2'000'000'000u);
  EXPECT_EQ(p.comments, Strings{"umbra shadow profile of pid 42"});
  EXPECT_EQ(p.period, 0u);  // the report does not say its interval

  ASSERT_EQ(p.samples.size(), 4u);
  EXPECT_EQ(sample_at(p, {"App.Program.Main"}).values, (std::vector<uint64_t>{0, 1, 100'000'000}));
  EXPECT_EQ(sample_at(p, {"App.Program.Main", "App.Program.Hot"}).values, (std::vector<uint64_t>{7, 10, 899'000'000}));
  EXPECT_EQ(sample_at(p, {"App.Program.Main", "App.Program.Tiny"}).values, (std::vector<uint64_t>{0, 3, 1'000'000}));
  const auto& worker = sample_at(p, {"App.Worker.Run"});
  EXPECT_EQ(worker.values, (std::vector<uint64_t>{0, 1, 5'000'000}));

  // Labels: the name where the thread has one, its OS id always.
  const auto& main = sample_at(p, {"App.Program.Main"});
  EXPECT_EQ(main.string_labels, (std::map<std::string, std::string>{{"thread", "Main \"thread\""}}));
  EXPECT_EQ(main.number_labels, (std::map<std::string, uint64_t>{{"thread_id", 42}}));
  EXPECT_TRUE(worker.string_labels.empty());
  EXPECT_EQ(worker.number_labels, (std::map<std::string, uint64_t>{{"thread_id", 43}}));

  // One function and one location per frame; managed frames name their module as the file, with no mapping.
  EXPECT_EQ(p.functions.size(), 4u);
  EXPECT_EQ(p.locations.size(), 4u);
  EXPECT_TRUE(p.mappings.empty());
  for (const auto& [id, f] : p.functions) {
    EXPECT_EQ(f.system_name, f.name);
    EXPECT_EQ(f.filename, "App.dll");
    EXPECT_EQ(p.locations.at(id).mapping_id, 0u);
    EXPECT_EQ(p.locations.at(id).function_ids, std::vector<uint64_t>{id});
  }
  // Each string once.
  EXPECT_EQ(std::set<std::string>(p.strings.begin(), p.strings.end()).size(), p.strings.size());
}

TEST(PprofWriter, SampledModeHasSamplesOnlyAndThePeriod) {
  Report r = testing::known_sampled_report(3, 5);
  for (auto& t : r.threads) forget_calls_and_times(t.roots);
  r.stats.sampler = ReportStats::Sampler{};
  r.stats.sampler->interval_ms = 10;
  DecodedProfile p = decode_profile(report_to_pprof(r));
  EXPECT_EQ(p.sample_types, (std::vector<std::pair<std::string, std::string>>{{"samples", "count"}}));
  EXPECT_EQ(p.period_type, (std::pair<std::string, std::string>{"wall", "nanoseconds"}));
  EXPECT_EQ(p.period, 10'000'000u);
  // Only nodes with samples of their own: Tiny and the worker's have none.
  ASSERT_EQ(p.samples.size(), 2u);
  EXPECT_EQ(sample_at(p, {"App.Program.Main"}).values, std::vector<uint64_t>{3});
  EXPECT_EQ(sample_at(p, {"App.Program.Main", "App.Program.Hot"}).values, std::vector<uint64_t>{5});
}

// A thread whose CPU time was read told its samples apart: cpu_samples follows samples, each node's own.
TEST(PprofWriter, SamplesOnACpuAreASampleTypeOfTheirOwn) {
  Report r = testing::known_sampled_report(3, 5);
  for (auto& t : r.threads) forget_calls_and_times(t.roots);
  r.threads[0].cpu_ns = 1'000'000;
  r.threads[0].roots[0].children[0].self_cpu_samples = 4;  // Hot: 4 of its 5 samples on a CPU
  DecodedProfile p = decode_profile(report_to_pprof(r));
  EXPECT_EQ(p.sample_types, (std::vector<std::pair<std::string, std::string>>{{"samples", "count"},
                                                                              {"cpu_samples", "count"}}));
  EXPECT_EQ(p.default_sample_type, "samples");
  EXPECT_EQ(sample_at(p, {"App.Program.Main"}).values, (std::vector<uint64_t>{3, 0}));
  EXPECT_EQ(sample_at(p, {"App.Program.Main", "App.Program.Hot"}).values, (std::vector<uint64_t>{5, 4}));

  // Read but never on a CPU: the type is there, all zeros.
  r.threads[0].roots[0].children[0].self_cpu_samples = 0;
  p = decode_profile(report_to_pprof(r));
  ASSERT_EQ(p.sample_types.size(), 2u);
  EXPECT_EQ(sample_at(p, {"App.Program.Main", "App.Program.Hot"}).values, (std::vector<uint64_t>{5, 0}));
}

TEST(PprofWriter, NativeFramesLieInAMappingOfTheirModule) {
  Report r = testing::known_sampled_report(0, 0);
  for (auto& t : r.threads) forget_calls_and_times(t.roots);
  ReportNode& hot = r.threads[0].roots[0].children[0];
  auto native = [](const char* name, const char* module, uint64_t self) {
    ReportNode n;
    n.frame = intern_frame(name, module, "native");
    n.self_samples = n.samples = self;
    return n;
  };
  ReportNode deflate = native("deflate", "libz.so.1", 2);
  deflate.children.push_back(native("memcpy", "libc.so.6", 4));
  deflate.children.push_back(native("deflate_slow", "libz.so.1", 1));
  hot.children.push_back(std::move(deflate));
  DecodedProfile p = decode_profile(report_to_pprof(r));

  ASSERT_EQ(p.mappings.size(), 2u);
  std::map<std::string, uint64_t> mapping_of;
  for (const auto& [id, m] : p.mappings) {
    EXPECT_TRUE(m.has_functions) << m.filename;  // pprof must not look for the file to name them
    mapping_of[m.filename] = id;
  }
  const auto& memcpy = sample_at(p, {"App.Program.Main", "App.Program.Hot", "deflate", "memcpy"});
  EXPECT_EQ(memcpy.values, std::vector<uint64_t>{4});
  EXPECT_EQ(p.locations.at(memcpy.location_ids[0]).mapping_id, mapping_of.at("libc.so.6"));
  EXPECT_EQ(p.locations.at(memcpy.location_ids[1]).mapping_id, mapping_of.at("libz.so.1"));
  EXPECT_EQ(p.locations.at(memcpy.location_ids[2]).mapping_id, 0u);  // Hot, managed
  const auto& slow = sample_at(p, {"App.Program.Main", "App.Program.Hot", "deflate", "deflate_slow"});
  EXPECT_EQ(p.locations.at(slow.location_ids[0]).mapping_id, mapping_of.at("libz.so.1"));
  // The native function's module is its mapping's file, not a source file.
  const auto& function = p.functions.at(p.locations.at(memcpy.location_ids[0]).function_ids[0]);
  EXPECT_EQ(function.name, "memcpy");
  EXPECT_EQ(function.filename, "");
}

// pprof names a profile after its first mapping that is not a shared library: the program's, mapping 1, where the
// program's own native frames lie too (an app host's executable).
TEST(PprofWriter, TheProgramIsTheFirstMapping) {
  Report r = testing::known_named_report();
  DecodedProfile managed_only = decode_profile(report_to_pprof(r));
  ASSERT_EQ(managed_only.mappings.size(), 1u);
  EXPECT_EQ(managed_only.mappings.at(1).filename, "MSBuild.dll");
  EXPECT_TRUE(managed_only.mappings.at(1).has_functions);
  EXPECT_EQ(managed_only.comments, Strings{"umbra 0.1.0 shadow profile of pid 42 (MSBuild.dll)"});

  // A library's frame met first, then one of the program's own.
  auto native = [](const char* name, const char* module) {
    ReportNode n;
    n.frame = intern_frame(name, module, "native");
    n.self_samples = n.samples = 1;
    return n;
  };
  r.threads[0].roots[0].children.insert(r.threads[0].roots[0].children.begin(), native("memcpy", "libc.so.6"));
  r.threads[0].roots[0].children.push_back(native("corehost_main", "MSBuild.dll"));
  DecodedProfile p = decode_profile(report_to_pprof(r));
  ASSERT_EQ(p.mappings.size(), 2u);
  EXPECT_EQ(p.mappings.at(1).filename, "MSBuild.dll");
  EXPECT_EQ(p.mappings.at(2).filename, "libc.so.6");
  const auto& sample = sample_at(p, {"App.Program.Main", "corehost_main"});
  EXPECT_EQ(p.locations.at(sample.location_ids[0]).mapping_id, 1u);
  EXPECT_EQ(p.locations.at(sample.location_ids[1]).mapping_id, 0u);  // managed
}

// Written in full, a chain D deep costs O(D^2); bounded as collapsed stacks are, totals unchanged.
TEST(PprofWriter, ADeepChainIsCutNotSquared) {
  std::string pprof;
  StackCuts cuts;
  run_on_large_stack([&] {
    Report r = testing::deep_chain(testing::kDeepChain);
    pprof = report_to_pprof(r, &cuts);
    r.threads.clear();  // destroyed here: destruction recurses as deep as the tree
  });
  DecodedProfile p = decode_profile(pprof);
  ASSERT_EQ(p.samples.size(), 1025u);  // the first 1024 levels, then one sample for the rest
  uint64_t total = 0;
  for (const auto& s : p.samples) total += s.values.at(0);
  EXPECT_EQ(total, uint64_t(testing::kDeepChain));
  const auto& last = p.samples.back();
  ASSERT_EQ(last.location_ids.size(), 1025u);
  EXPECT_EQ(p.stack(last).back(), testing::kDeeperMarker);
  EXPECT_EQ(last.values.at(0), uint64_t(testing::kDeepChain - 1024));
  EXPECT_EQ(cuts.merged, uint64_t(testing::kDeepChain - 1024));
  EXPECT_EQ(p.functions.size(), 2u);  // F and the marker
}

TEST(PprofWriter, SamplesPastTheByteBoundAreLeftOutAndCounted) {
  Report r = testing::known_report();
  StackCuts cuts;
  DecodedProfile p = decode_profile(report_to_pprof(r, &cuts, StackLimits{.max_frames = 1024, .max_bytes = 40}));
  EXPECT_EQ(p.samples.size() + cuts.left_out, 4u);
  EXPECT_GT(cuts.left_out, 0u);
  EXPECT_GT(p.samples.size(), 0u);
}

TEST(PprofWriter, NodesWithNothingOfTheirOwnAreNoSample) {
  Report r = testing::known_report();
  ReportNode& main = r.threads[0].roots[0];
  main.calls.reset();  // a frame the hooks did not see (native, or without hooks)
  main.self_ns = 0;
  DecodedProfile p = decode_profile(report_to_pprof(r));
  EXPECT_EQ(p.samples.size(), 3u);
  EXPECT_EQ(p.sample_types.size(), 3u);
}

// Counts read from a file can be anything; pprof's are int64.
TEST(PprofWriter, CountsBeyondInt64AreHeldAtItsLargest) {
  Report r = testing::known_report();
  r.threads[0].roots[0].calls = UINT64_MAX;
  DecodedProfile p = decode_profile(report_to_pprof(r));
  EXPECT_EQ(sample_at(p, {"App.Program.Main"}).values.at(1), uint64_t(INT64_MAX));
}

}  // namespace
}  // namespace umbra
