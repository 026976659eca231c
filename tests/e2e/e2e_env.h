// Where the end-to-end tests find what the build produced (paths come from CMake), and which runtime runs the
// test programs.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace umbra::testing {

inline std::string launcher_path() { return UMBRA_TEST_LAUNCHER; }
inline std::string library_path() { return UMBRA_TEST_LIBRARY; }
inline std::string native_test_library() { return UMBRA_TEST_NATIVE_LIB; }
// Preloaded to make report files fail as on a full or read-only file system (tests/native/umbra_fault_files.c).
inline std::string fault_files_library() { return UMBRA_TEST_FAULT_FILES_LIB; }
// The runtime the test programs run on: UMBRA_TEST_RUNTIME from ctest's environment (net8, net9: the core programs
// published self-contained for it), or net10, the SDK's runtime.
std::string test_runtime();
// That runtime's exact version ("10.0.12", "8.0.33"): what the report must say.
std::string expected_runtime_version();
// The command that runs a test program: `dotnet App.dll args...` on net10, `App args...` (its own executable,
// the runtime beside it) on an older runtime.
std::vector<std::string> app_command(const std::string& app, const std::vector<std::string>& args = {});
// `before` (the launcher and its options, say) followed by app_command(app, args).
std::vector<std::string> with_app(std::vector<std::string> before, const std::string& app,
                                  const std::vector<std::string>& args = {});
// The hook family shadow mode should be using: UMBRA_HOOKS from ctest's environment, or the default.
std::string expected_hook_family();
// The environment that loads umbra into a .NET process directly (no launcher), writing <output>.*.
std::map<std::string, std::string> profiler_env(const std::string& output);
// A fresh directory for one test's reports (one per runtime and hook family, so that runs of a suite can overlap).
std::string scratch_dir(const std::string& test_name);

// A whole file as bytes; empty if it cannot be read.
std::string read_file(const std::string& path);

}  // namespace umbra::testing
