#include "e2e_env.h"

#include <cstdlib>
#include <filesystem>

namespace umbra::testing {

std::string expected_hook_family() {
  const char* hooks = std::getenv("UMBRA_HOOKS");
  return hooks && *hooks ? hooks : "elt3";
}

std::string scratch_dir(const std::string& test_name) {
  auto dir = std::filesystem::path(UMBRA_TEST_SCRATCH) / expected_hook_family() / test_name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

}  // namespace umbra::testing
