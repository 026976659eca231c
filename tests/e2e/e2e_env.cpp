#include "e2e_env.h"

#include <cstdlib>
#include <filesystem>

namespace umbra::testing {

std::string expected_hook_family() {
  const char* hooks = std::getenv("UMBRA_HOOKS");
  return hooks && *hooks ? hooks : "elt3";
}

std::map<std::string, std::string> profiler_env(const std::string& output) {
  return {{"CORECLR_ENABLE_PROFILING", "1"},
          {"CORECLR_PROFILER", "{9D4F3A52-6C1B-4E8A-B7D2-3F5A8C0E1B64}"},
          {"CORECLR_PROFILER_PATH", library_path()},
          {"UMBRA_OUTPUT", output}};
}

std::string scratch_dir(const std::string& test_name) {
  auto dir = std::filesystem::path(UMBRA_TEST_SCRATCH) / expected_hook_family() / test_name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

}  // namespace umbra::testing
