#include "e2e_env.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace umbra::testing {

std::string test_runtime() {
  const char* runtime = std::getenv("UMBRA_TEST_RUNTIME");
  return runtime && *runtime ? runtime : "net10";
}

std::string expected_runtime_version() {
  // UMBRA_TEST_RUNTIMES: "net10=10.0.12,net8=8.0.33,..." (tests/CMakeLists.txt).
  const std::string runtimes = UMBRA_TEST_RUNTIMES, key = test_runtime() + "=";
  for (size_t at = 0; at < runtimes.size();) {
    size_t end = runtimes.find(',', at);
    if (end == std::string::npos) end = runtimes.size();
    if (runtimes.compare(at, key.size(), key) == 0) return runtimes.substr(at + key.size(), end - at - key.size());
    at = end + 1;
  }
  throw std::runtime_error("UMBRA_TEST_RUNTIME=" + test_runtime() + " is not a runtime of this build (" + runtimes +
                           ")");
}

std::vector<std::string> app_command(const std::string& app, const std::vector<std::string>& args) {
  std::vector<std::string> argv;
  if (test_runtime() == "net10") {
    argv = {"dotnet", std::string(UMBRA_TEST_APPS) + "/" + app + "/" + app + ".dll"};
  } else {
    expected_runtime_version();  // throws for a runtime the build did not publish
    argv = {std::string(UMBRA_TEST_APPS) + "-" + test_runtime() + "/" + app + "/" + app};
    if (!std::filesystem::exists(argv[0]))
      throw std::runtime_error(app + " is not published for " + test_runtime() + ": only the core programs are");
  }
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

std::vector<std::string> with_app(std::vector<std::string> before, const std::string& app,
                                  const std::vector<std::string>& args) {
  std::vector<std::string> command = app_command(app, args);
  before.insert(before.end(), command.begin(), command.end());
  return before;
}

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
  // Every variant of the suite (runtime, hook family, walker) has its own: ctest may run two variants at once.
  const char* walker = std::getenv("UMBRA_WALKER");
  auto dir = std::filesystem::path(UMBRA_TEST_SCRATCH) / test_runtime() / expected_hook_family() /
             (walker && *walker ? walker : "default-walker") / test_name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace umbra::testing
