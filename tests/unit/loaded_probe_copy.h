// A copy of the test's probe library (UMBRA_TEST_SYMTAB_PROBE), loaded under a name no other test loads: the
// process's objects change, so what umbra remembers about code addresses (unwind information, rows) is forgotten
// once the code ranges are refreshed. Unloaded and removed at the end of the scope.
#pragma once

#include <dlfcn.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace umbra {

struct LoadedProbeCopy {
  std::filesystem::path path;
  void* handle = nullptr;

  explicit LoadedProbeCopy(const std::string& tag)
      : path(std::filesystem::temp_directory_path() / ("umbra_" + tag + "_" + std::to_string(getpid()) + ".so")) {
    std::filesystem::copy_file(UMBRA_TEST_SYMTAB_PROBE, path, std::filesystem::copy_options::overwrite_existing);
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  }
  ~LoadedProbeCopy() {
    if (handle) dlclose(handle);
    std::filesystem::remove(path);
  }
  LoadedProbeCopy(const LoadedProbeCopy&) = delete;
  LoadedProbeCopy& operator=(const LoadedProbeCopy&) = delete;
};

}  // namespace umbra
