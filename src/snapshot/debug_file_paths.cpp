#include "snapshot/debug_file_paths.h"
#include "util/paths.h"

namespace umbra {

std::string build_id_debug_path(std::string_view root, const unsigned char* id, size_t length) {
  if (length == 0) return "";
  static constexpr char kHex[] = "0123456789abcdef";
  std::string path(root);
  path += "/.build-id/";
  for (size_t i = 0; i < length; ++i) {
    if (i == 1) path += '/';
    path += kHex[id[i] >> 4];
    path += kHex[id[i] & 0xf];
  }
  return path + ".debug";
}

std::vector<std::string> debuglink_paths(const std::string& module_path, const std::string& debuglink,
                                         std::string_view root) {
  std::string directory = directory_of(module_path);
  return {directory + "/" + debuglink, directory + "/.debug/" + debuglink,
          std::string(root) + directory + "/" + debuglink};
}

}  // namespace umbra
