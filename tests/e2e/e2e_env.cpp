#include "e2e_env.h"

#include <filesystem>

namespace umbra::testing {

std::string scratch_dir(const std::string& test_name) {
  auto dir = std::filesystem::path(UMBRA_TEST_SCRATCH) / test_name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

}  // namespace umbra::testing
