// The parts of a file path that reports and look-ups name: the file, and the directory it is in.
#pragma once

#include <string>
#include <string_view>

namespace umbra {

// "/usr/lib/libc.so.6" -> "libc.so.6"; a name without a slash is its own file name.
inline std::string_view file_name_of(std::string_view path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// "/usr/lib/libc.so.6" -> "/usr/lib"; "." for a name without a slash.
inline std::string directory_of(std::string_view path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string_view::npos ? std::string(".") : std::string(path.substr(0, slash));
}

}  // namespace umbra
