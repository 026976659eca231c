// Real programs umbra was not written for, in both modes: `dotnet build` (MSBuild, which starts the C# compiler as
// a process of its own). The build succeeds with the same output, and the reports hold thousands of methods.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "e2e_env.h"
#include "process.h"
#include "report_query.h"
#include "util/large_stack.h"

namespace umbra::testing {
namespace {

namespace fs = std::filesystem;

// A fresh copy of tests/apps/BuildMe (kept as *.in so that nothing else builds it).
std::string copy_project(const std::string& dir) {
  std::string project = dir + "/BuildMe";
  fs::create_directories(project);
  fs::copy_file(std::string(UMBRA_TEST_SOURCE_APPS) + "/BuildMe/BuildMe.csproj.in", project + "/BuildMe.csproj");
  fs::copy_file(std::string(UMBRA_TEST_SOURCE_APPS) + "/BuildMe/Program.cs.in", project + "/Program.cs");
  return project;
}

std::vector<std::string> build_command(const std::string& project, const std::string& out) {
  // No build servers: they would outlive the build and write their reports late.
  return {"dotnet", "build", project, "-c", "Release", "-nodeReuse:false", "-p:UseSharedCompilation=false",
          "--nologo", "-v", "q", "-o", out};
}

// The build's console output without the line that times it.
std::string without_elapsed_time(const std::string& text) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (line.find("Time Elapsed") == std::string::npos) out += line + "\n";
    start = end + 1;
  }
  return out;
}

struct ReportFacts {
  size_t threads = 0;
  size_t methods = 0;           // distinct managed method names
  double compile_share = 0;     // the compiler's main thread: share of its weight under CompileAndEmit
  uint64_t bytes = 0;
};

ReportFacts facts_of(const std::string& path) {
  ReportFacts f;
  f.bytes = fs::file_size(path);
  run_on_large_stack([&] {
    JsonValue report = load_report(path);
    f.threads = threads_of(report).size();
    std::set<std::string> names;
    for_each_node(report, [&](const JsonValue& node) {
      if (node.find("kind")->as_string() == "managed") names.insert(name_of(node));
    });
    f.methods = names.size();
    // The compiler's main thread (in sampled mode its roots may be native frames below Main).
    const JsonValue* main = nullptr;
    for (const auto& thread : threads_of(report))
      if (find_anywhere(roots_of(thread), "Microsoft.CodeAnalysis.CSharp.CommandLine.Program.Main")) main = &thread;
    if (main == nullptr) return;
    uint64_t all = outermost_samples(*main, [](const std::string&) { return true; });
    uint64_t compiling = outermost_samples(
        *main, [](const std::string& name) { return name == "Microsoft.CodeAnalysis.CommonCompiler.CompileAndEmit"; });
    f.compile_share = all ? double(compiling) / double(all) : 0;
  });
  return f;
}

TEST(RealPrograms, DotnetBuildInBothModes) {
  std::string dir = scratch_dir("dotnet_build");
  std::string plain_project = copy_project(dir + "/plain");
  ProcessResult plain = run_process(build_command(plain_project, dir + "/plain/out"), {}, 600);
  ASSERT_EQ(plain.exit_code, 0) << plain.out << plain.err;

  for (const char* mode : {"sampled", "shadow"}) {
    SCOPED_TRACE(mode);
    std::string project = copy_project(dir + "/" + mode);
    std::vector<std::string> argv = {launcher_path(), "run", "--mode", mode, "-o", dir + "/" + mode + "/r", "--"};
    // Shadow mode with every method hooked: MSBuild's and the compiler's thousands of methods, counted.
    if (std::string(mode) == "shadow") argv.insert(argv.end() - 1, {"--hooks-for", "all"});
    auto build = build_command(project, dir + "/" + mode + "/out");
    argv.insert(argv.end(), build.begin(), build.end());
    ProcessResult r = run_process(argv, {}, 900);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_EQ(without_elapsed_time(r.out), without_elapsed_time(plain.out));
    ProcessResult built = run_process({"dotnet", dir + "/" + mode + "/out/BuildMe.dll"});
    EXPECT_EQ(built.out, "c0=1102.5,c1=1125.0,c2=1147.5,c3=1018.5,c4=1039.5,c5=1060.5,c6=1081.5\n");

    // MSBuild's report, and the compiler's (a process MSBuild started: <prefix>.<pid>.json).
    ReportFacts msbuild = facts_of(dir + "/" + mode + "/r.json");
    std::vector<std::string> descendants;
    for (const auto& entry : fs::directory_iterator(dir + "/" + mode))
      if (entry.path().extension() == ".json" && entry.path().filename() != "r.json")
        descendants.push_back(entry.path().string());
    ASSERT_EQ(descendants.size(), 1u) << r.err;
    ReportFacts compiler = facts_of(descendants[0]);
    const bool shadow = std::string(mode) == "shadow";
    EXPECT_GE(msbuild.threads, 5u);
    // Sampled at 100 Hz, a build of about a second names 630-700 of MSBuild's methods on a 2-core machine.
    EXPECT_GE(msbuild.methods, shadow ? 5000u : 300u);
    EXPECT_GE(compiler.methods, shadow ? 5000u : 300u);
    EXPECT_GE(compiler.compile_share, 0.5) << "the compiler's main thread is mostly compiling";
    // The saved report holds everything the text report says: converted back, it says the same.
    std::string converted = dir + "/" + mode + "/converted";
    ProcessResult report =
        run_process({launcher_path(), "report", dir + "/" + mode + "/r.json", "--format", "text", "-o", converted});
    ASSERT_EQ(report.exit_code, 0) << report.err;
    EXPECT_TRUE(read_file(converted + ".txt") == read_file(dir + "/" + mode + "/r.txt"))
        << "the text report from " << dir << "/" << mode << "/r.json differs from the one the profiler wrote";
    std::printf("[ %s ] msbuild: %zu threads, %zu methods, %.1f MB; compiler: %zu threads, %zu methods, %.1f MB, "
                "%.0f%% of its main thread in CompileAndEmit\n",
                mode, msbuild.threads, msbuild.methods, double(msbuild.bytes) / 1e6, compiler.threads,
                compiler.methods, double(compiler.bytes) / 1e6, 100 * compiler.compile_share);
  }
}

}  // namespace
}  // namespace umbra::testing
