#include "output_directory.h"

#include <limits.h>
#include <unistd.h>

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

std::string absolute_path(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  char cwd[PATH_MAX];
  if (getcwd(cwd, sizeof cwd) == nullptr) return path;
  return std::string(cwd) + "/" + (path.rfind("./", 0) == 0 ? path.substr(2) : path);
}

}  // namespace umbra::launcher
