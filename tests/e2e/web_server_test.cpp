// A real web server: an ASP.NET Core minimal API (tests/apps/WebApi) on 127.0.0.1 under a bounded load from a
// client that is not profiled (tests/apps/LoadClient), without umbra and in both modes. Every request is answered
// correctly; the report shows the request pipeline on the threads that served it; the sampled profile's collapsed
// stacks fold the runtime's frames. Throughput and latency are printed for comparison, never asserted.
#include <dlfcn.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <libelf.h>
#include <link.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "../libc_debug_file.h"
#include "e2e_env.h"
#include "process.h"
#include "report_query.h"
#include "snapshot/debug_file_paths.h"
#include "util/large_stack.h"

namespace umbra::testing {
namespace {

constexpr int kLoadSeconds = 20;
constexpr int kConnections = 8;

struct LoadResult {
  ProcessResult server, client;
  uint64_t requests = 0, failures = 0, served = 0;
  double rps = 0, p50_ms = 0, p99_ms = 0;
};

// Starts the server (under umbra with `options` when `mode` is set), waits for its address, loads it, and lets it
// shut down.
LoadResult serve_under_load(const std::string& dir, const std::string& mode,
                            const std::vector<std::string>& options = {}) {
  std::string port_file = dir + "/address";
  std::vector<std::string> argv = app_command("WebApi", {port_file});
  if (!mode.empty()) {
    std::vector<std::string> umbra = {launcher_path(), "run", "--mode", mode, "-o", dir + "/r"};
    umbra.insert(umbra.end(), options.begin(), options.end());
    umbra.push_back("--");
    argv.insert(argv.begin(), umbra.begin(), umbra.end());
  }
  LoadResult load;
  std::thread server([&] { load.server = run_process(argv, {}, 300); });
  std::string address;
  for (int i = 0; i < 1200 && address.empty(); ++i) {
    std::ifstream in(port_file);
    std::getline(in, address);
    if (address.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (!address.empty()) {
    load.client =
        run_process(app_command("LoadClient", {address, std::to_string(kLoadSeconds), std::to_string(kConnections)}));
  }
  server.join();
  EXPECT_FALSE(address.empty()) << "the server never said where it listens: " << load.server.err;
  std::sscanf(load.client.out.c_str(), "requests=%lu failures=%lu rps=%lf p50_ms=%lf p99_ms=%lf", &load.requests,
              &load.failures, &load.rps, &load.p50_ms, &load.p99_ms);
  std::sscanf(load.server.out.c_str(), "served %lu", &load.served);
  EXPECT_EQ(load.client.exit_code, 0) << load.client.err;
  EXPECT_EQ(load.server.exit_code, 0) << load.server.err;
  EXPECT_EQ(load.failures, 0u) << load.client.out;
  EXPECT_GE(load.requests, 1000u) << load.client.out;
  EXPECT_EQ(load.served, load.requests) << "every request answered once: " << load.server.out;
  return load;
}

bool is_pipeline_frame(const std::string& name) { return name.rfind("Microsoft.AspNetCore.", 0) == 0; }

// Whether libc's debug file is installed (libc6-dbg), where umbra looks for it: by libc's build id.
bool libc_debug_file_installed() {
  std::optional<std::string> debug_file = libc_debug_file();
  return debug_file && !debug_file->empty() && std::filesystem::exists(*debug_file);
}

// The runtime's and its host's modules: the frames folded by default.
bool is_runtime_module(const std::string& module) {
  for (const char* m : {"libcoreclr.so", "libclrjit.so", "libhostfxr.so", "libhostpolicy.so", "dotnet", "libclrgc.so"})
    if (module == m) return true;
  return false;
}

// Collapsed stacks as frame lists, each with its count.
std::vector<std::pair<std::vector<std::string>, uint64_t>> collapsed_stacks(const std::string& text) {
  std::vector<std::pair<std::vector<std::string>, uint64_t>> stacks;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    size_t space = line.rfind(' ');
    std::vector<std::string> frames;
    std::istringstream parts(line.substr(0, space));
    for (std::string frame; std::getline(parts, frame, ';');) frames.push_back(frame);
    stacks.emplace_back(std::move(frames), std::stoull(line.substr(space + 1)));
  }
  return stacks;
}

// The run's collapsed stacks fold every run of the runtime's frames into one frame ("[libcoreclr.so]", "[native
// start-up]"), while its JSON report keeps them all, and `umbra report --runtime-frames keep` shows them again.
void expect_runtime_frames_folded(const std::string& dir, const JsonValue& report) {
  std::set<std::string> runtime_frames;  // names of the runtime's frames that have samples
  size_t longest_run = 0;
  for (const auto& thread : threads_of(report))
    for_each_path(thread, [&](const std::vector<const JsonValue*>& path) {
      const JsonValue& last = *path.back();
      if (last.find("kind")->as_string() != "native" || !is_runtime_module(last.find("module")->as_string())) return;
      if (samples_of(last) > 0) runtime_frames.insert(name_of(last));
      size_t run = 0;
      for (auto it = path.rbegin(); it != path.rend(); ++it, ++run)
        if ((*it)->find("kind")->as_string() != "native" || !is_runtime_module((*it)->find("module")->as_string()))
          break;
      longest_run = std::max(longest_run, run);
    });
  EXPECT_GE(longest_run, 5u) << "the JSON report keeps the runtime's frames, runs of them";

  auto is_folded = [](const std::string& frame) {
    return frame == "[native start-up]" || (frame.front() == '[' && frame.find(".so") != std::string::npos);
  };
  uint64_t folded_weight = 0, folded_frames = 0;
  for (const auto& [frames, count] : collapsed_stacks(read_file(dir + "/r.collapsed"))) {
    folded_weight += count;
    for (size_t i = 0; i < frames.size(); ++i) {
      EXPECT_EQ(runtime_frames.count(frames[i]), 0u) << frames[i] << " not folded";
      folded_frames += is_folded(frames[i]);
      if (i > 0) EXPECT_FALSE(is_folded(frames[i - 1]) && is_folded(frames[i])) << frames[i - 1] << ";" << frames[i];
    }
  }
  EXPECT_GT(folded_frames, 0u);

  ProcessResult keep = run_process({launcher_path(), "report", dir + "/r.json", "--format", "collapsed",
                                    "--runtime-frames", "keep", "-o", dir + "/kept"});
  ASSERT_EQ(keep.exit_code, 0) << keep.err;
  uint64_t kept_weight = 0;
  std::set<std::string> kept_frames;
  for (const auto& [frames, count] : collapsed_stacks(read_file(dir + "/kept.collapsed"))) {
    kept_weight += count;
    kept_frames.insert(frames.begin(), frames.end());
  }
  EXPECT_EQ(kept_weight, folded_weight);
  for (const auto& frame : runtime_frames) EXPECT_EQ(kept_frames.count(frame), 1u) << frame << " not kept";
}

TEST(RealPrograms, AspNetCoreMinimalApiUnderLoad) {
  std::string base = scratch_dir("aspnetcore");
  std::filesystem::create_directories(base + "/none");
  LoadResult none = serve_under_load(base + "/none", "");
  std::printf("[ none ] %lu requests, %.0f req/s, p50 %.2f ms, p99 %.2f ms\n", none.requests, none.rps, none.p50_ms,
              none.p99_ms);
  // Focused: hooks on the program's own assembly only, the framework precompiled and inlined as without umbra.
  struct Variant {
    const char *name, *mode;
    std::vector<std::string> options;
  } variants[] = {{"sampled", "sampled", {"--format", "json,collapsed"}},
                  {"shadow", "shadow", {"--hooks-for", "all"}},  // the pipeline hooked: each order under it
                  {"focused", "shadow", {"--hooks-for", "[WebApi]"}}};
  const bool libc_named = libc_debug_file_installed();
  for (const Variant& variant : variants) {
    const char* mode = variant.name;
    SCOPED_TRACE(mode);
    std::string dir = base + "/" + mode;
    std::filesystem::create_directories(dir);
    LoadResult load = serve_under_load(dir, variant.mode, variant.options);
    std::printf("[ %s ] %lu requests, %.0f req/s (%.2fx the unprofiled rate), p50 %.2f ms, p99 %.2f ms, "
                "report %.1f MB\n",
                mode, load.requests, load.rps, none.rps > 0 ? load.rps / none.rps : 0, load.p50_ms, load.p99_ms,
                double(std::filesystem::file_size(dir + "/r.json")) / 1e6);
    run_on_large_stack([&] {
      JsonValue report = load_report(dir + "/r.json");
      // Threads on which the pipeline (Kestrel, routing, the endpoint) ran down to the order pricing.
      std::set<const JsonValue*> serving_threads;
      uint64_t priced_calls = 0, pipeline_samples = 0;
      for (const auto& thread : threads_of(report)) {
        pipeline_samples += outermost_samples(thread, is_pipeline_frame);
        for_each_path(thread, [&](const std::vector<const JsonValue*>& path) {
          const JsonValue& last = *path.back();
          if (name_of(last) != "Orders.Price") return;
          for (const JsonValue* frame : path)
            if (is_pipeline_frame(name_of(*frame))) {
              serving_threads.insert(&thread);
              priced_calls += calls_of(last);
              break;
            }
        });
      }
      std::printf("[ %s ] %zu threads served requests, %lu samples in the pipeline\n", mode, serving_threads.size(),
                  pipeline_samples);
      if (std::string(mode) == "shadow") {
        EXPECT_EQ(priced_calls, load.served) << "every order priced under the request pipeline, counted exactly";
        EXPECT_GE(serving_threads.size(), 2u) << "requests are served on several thread-pool threads";
      } else if (std::string(mode) == "focused") {
        // The pipeline has no hooks: its frames appear only where snapshots saw them. The count is exact anyway.
        uint64_t priced_anywhere = 0;
        std::set<const JsonValue*> pricing_threads;
        for (const auto& thread : threads_of(report))
          if (uint64_t calls = total_calls(roots_of(thread), "Orders.Price")) {
            priced_anywhere += calls;
            pricing_threads.insert(&thread);
          }
        EXPECT_EQ(priced_anywhere, load.served) << "every order priced, counted exactly";
        EXPECT_GE(pricing_threads.size(), 2u) << "requests are served on several thread-pool threads";
        const JsonValue& stats = *report.find("stats");
        EXPECT_EQ(stats.find("compiled_without_hooks")->as_uint(), 0u);
        EXPECT_GT(stats.find("module_load_windows")->as_uint(), 0u);
        for (const auto& [reason, count] : stats.find("drops")->as_object()) EXPECT_EQ(count.as_uint(), 0u) << reason;
      } else {
        EXPECT_GE(pipeline_samples, 100u) << "the request pipeline is sampled";
        expect_runtime_frames_folded(dir, report);
        // Where libc6-dbg is installed, libc's internal functions (its waits, its start-up) have their names.
        if (libc_named)
          for_each_node(report, [&](const JsonValue& n) {
            EXPECT_NE(name_of(n).rfind("libc.so.6+", 0), 0u) << "an unnamed libc frame";
          });
        else
          std::printf("[ %s ] libc's debug file is not installed: its frames' names are not checked\n", mode);
      }
    });
  }
}

}  // namespace
}  // namespace umbra::testing
