#include "output_directory.h"

#include <filesystem>
#include <system_error>

namespace umbra::launcher {

std::string make_output_directory(const std::string& prefix) {
  std::filesystem::path directory = std::filesystem::path(prefix).parent_path();
  if (directory.empty()) return "";
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  return error ? error.message() : "";
}

}  // namespace umbra::launcher
