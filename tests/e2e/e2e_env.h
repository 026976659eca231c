// Where the end-to-end tests find what the build produced (paths come from CMake).
#pragma once

#include <map>
#include <string>

namespace umbra::testing {

inline std::string launcher_path() { return UMBRA_TEST_LAUNCHER; }
inline std::string library_path() { return UMBRA_TEST_LIBRARY; }
inline std::string native_test_library() { return UMBRA_TEST_NATIVE_LIB; }
// Preloaded to make report files fail as on a full or read-only file system (tests/native/umbra_fault_files.c).
inline std::string fault_files_library() { return UMBRA_TEST_FAULT_FILES_LIB; }
inline std::string app_dll(const std::string& app) { return std::string(UMBRA_TEST_APPS) + "/" + app + "/" + app + ".dll"; }
// The hook family shadow mode should be using: UMBRA_HOOKS from ctest's environment, or the default.
std::string expected_hook_family();
// The environment that loads umbra into a .NET process directly (no launcher), writing <output>.*.
std::map<std::string, std::string> profiler_env(const std::string& output);
// A fresh directory for one test's reports (one per hook family, so both runs of a suite can overlap).
std::string scratch_dir(const std::string& test_name);

}  // namespace umbra::testing
