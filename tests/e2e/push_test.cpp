// Pushing each period's pprof to Grafana Pyroscope (--push), against a local receiver standing in for it
// (http_receiver.h): the requests are what Pyroscope's ingest API takes (the path, the application name and its
// labels, the period's times, the profile in the multipart field "profile", which pprof itself reads back with the
// period's own totals); with the receiver down (connection refused) or too slow (it never answers), the program's
// output and exit status are unchanged and the failures are counted in the report.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "e2e_env.h"
#include "http_receiver.h"
#include "go_pprof.h"
#include "process.h"
#include "report_query.h"

namespace umbra::testing {
namespace {

struct PushedRun {
  ProcessResult result;
  std::string prefix;
  size_t periods = 0;
  JsonValue report;
};

PushedRun run_pushing(const std::string& name, const std::string& url, const std::string& milliseconds = "1200") {
  PushedRun run;
  std::string dir = scratch_dir("push_" + name);
  run.prefix = dir + "/r";
  run.result = run_process(with_app({launcher_path(), "run", "--interval-ms", "2", "--every", "400ms", "--push", url,
                                     "--push-labels", "env=test,team=perf", "--format", "json,pprof", "-o",
                                     run.prefix, "--"},
                                    "Workloads", {"steady", milliseconds}));
  while (std::filesystem::exists(run.prefix + ".p" + std::to_string(run.periods + 1) + ".json")) ++run.periods;
  run.report = load_report(run.prefix + ".json");
  return run;
}

uint64_t push_stat(const JsonValue& report, const char* field) {
  const JsonValue* push = report.find("stats")->find("push");
  return push && push->find(field) ? push->find(field)->as_uint() : ~uint64_t(0);
}

// `go tool pprof -top FILE`'s total of the samples sample type ("... of N total").
uint64_t pprof_total_samples(const std::string& file, const std::string& scratch) {
  ProcessResult r = run_go_pprof({"-top", "-sample_index=samples", file}, scratch);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  std::smatch m;
  if (!std::regex_search(r.out, m, std::regex(R"(of (\d+) total)"))) {
    ADD_FAILURE() << r.out;
    return 0;
  }
  return std::stoull(m[1]);
}

uint64_t report_samples(const JsonValue& report) {
  uint64_t samples = 0;
  for (const JsonValue& thread : threads_of(report)) samples += thread_samples_of(thread);
  return samples;
}

TEST(Push, EachPeriodReachesTheReceiver) {
  HttpReceiver receiver(HttpReceiver::Answer::kOk);
  PushedRun run = run_pushing("up", receiver.url());
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  // The receiver's answer has a body: it must not reach the program's stdout.
  EXPECT_EQ(run.result.out, "steady done\n");
  ASSERT_GE(run.periods, 2u) << run.result.err;
  std::vector<HttpRequest> requests = receiver.requests();
  ASSERT_EQ(requests.size(), run.periods);
  EXPECT_EQ(push_stat(run.report, "pushed"), run.periods);
  EXPECT_EQ(push_stat(run.report, "failed"), 0u);
  const std::string pid = std::to_string(run.report.find("pid")->as_uint());
  const std::regex name("Workloads\\{host=[^,{}=]+,pid=" + pid + ",mode=shadow,env=test,team=perf\\}");
  for (size_t i = 0; i < requests.size(); ++i) {
    SCOPED_TRACE("period " + std::to_string(i + 1));
    const HttpRequest& request = requests[i];
    EXPECT_EQ(request.method, "POST");
    EXPECT_EQ(request.path(), "/ingest");
    std::map<std::string, std::string> query = request.query();
    EXPECT_TRUE(std::regex_match(query["name"], name)) << query["name"];
    EXPECT_EQ(query["format"], "pprof");
    EXPECT_EQ(query["spyName"], "umbra");
    EXPECT_EQ(query["sampleRate"], "500");
    // The period's own times, in whole seconds around it.
    JsonValue period = load_report(run.prefix + ".p" + std::to_string(i + 1) + ".json");
    const JsonValue* times = period.find("stats")->find("period");
    EXPECT_EQ(std::stoull(query["from"]), times->find("start_unix_ns")->as_uint() / 1000000000);
    EXPECT_GT(std::stoull(query["until"]), std::stoull(query["from"]));
    EXPECT_GE(std::stoull(query["until"]) * 1000000000, times->find("end_unix_ns")->as_uint());
    std::optional<std::string> profile = request.form_field("profile");
    ASSERT_TRUE(profile.has_value()) << request.headers.at("content-type");
    // What was pushed is the period's pprof file, byte for byte, and pprof reads the period's samples in it.
    std::string pprof_file = run.prefix + ".p" + std::to_string(i + 1) + ".pb.gz";
    EXPECT_EQ(*profile, read_file(pprof_file));
    std::string received = run.prefix + ".received" + std::to_string(i + 1) + ".pb.gz";
    std::ofstream(received, std::ios::binary) << *profile;
    EXPECT_EQ(pprof_total_samples(received, std::filesystem::path(run.prefix).parent_path()), report_samples(period));
  }
}

TEST(Push, ReceiverDownLeavesTheProgramAlone) {
  PushedRun run = run_pushing("down", HttpReceiver::refusing_url());
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  EXPECT_EQ(run.result.out, "steady done\n");
  ASSERT_GE(run.periods, 2u);
  EXPECT_EQ(push_stat(run.report, "pushed"), 0u);
  EXPECT_GE(push_stat(run.report, "failed"), 1u);
  // Every period is accounted for: failed after its attempts, dropped from a full queue, or unsent at the end.
  EXPECT_EQ(push_stat(run.report, "failed") + push_stat(run.report, "dropped") + push_stat(run.report, "abandoned"),
            run.periods);
  EXPECT_GE(push_stat(run.report, "retries"), 2 * push_stat(run.report, "failed"));
  const JsonValue* first = run.report.find("stats")->find("push")->find("first_failure");
  ASSERT_NE(first, nullptr);
  EXPECT_NE(first->as_string().find("onnect"), std::string::npos) << first->as_string();
  // Logged once.
  EXPECT_EQ(occurrences(run.result.err, "umbra: pushing to http://127.0.0.1:"), 1u) << run.result.err;
}

TEST(Push, ReceiverThatNeverAnswersLeavesTheProgramAlone) {
  HttpReceiver receiver(HttpReceiver::Answer::kNever);
  PushedRun run = run_pushing("slow", receiver.url());
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  EXPECT_EQ(run.result.out, "steady done\n");
  ASSERT_GE(run.periods, 2u);
  EXPECT_GE(receiver.connections(), 1u);
  EXPECT_EQ(push_stat(run.report, "pushed"), 0u);
  // The first attempt was still waiting for an answer when the program ended: the end waited a bounded time, then
  // left it and everything queued behind it.
  EXPECT_GE(push_stat(run.report, "abandoned"), 1u);
  EXPECT_EQ(push_stat(run.report, "failed") + push_stat(run.report, "dropped") + push_stat(run.report, "abandoned"),
            run.periods);
  EXPECT_NE(run.result.err.find("not sent in time at the end"), std::string::npos) << run.result.err;
}

TEST(Push, BadUrlPushesNothing) {
  std::string dir = scratch_dir("push_bad_url");
  auto env = profiler_env(dir + "/r");
  env["UMBRA_PUSH"] = "ftp://example";
  ProcessResult run = run_process(app_command("Workloads", {"steady", "100"}), env);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "steady done\n");
  EXPECT_EQ(occurrences(run.err, "umbra: UMBRA_PUSH='ftp://example' is not an http:// or https:// URL (Pyroscope's, "
                                 "like http://pyroscope:4040); not pushing"),
            1u)
      << run.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/r.p1.json"));
}

}  // namespace
}  // namespace umbra::testing
