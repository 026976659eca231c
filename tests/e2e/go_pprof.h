// `go tool pprof` (Debian's golang-go, which tools/test.sh installs) as the end-to-end tests run it: Go's caches and
// pprof's own directory under a scratch directory (the test's environment may have no HOME), and never the network.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "process.h"

namespace umbra::testing {

inline ProcessResult run_go_pprof(const std::vector<std::string>& args, const std::string& scratch) {
  std::string home = scratch + "/go-home";
  std::filesystem::create_directories(home);
  std::vector<std::string> argv = {UMBRA_TEST_GO, "tool", "pprof"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, {{"HOME", home},
                            {"GOCACHE", home + "/cache"},
                            {"GOPATH", home + "/go"},
                            {"PPROF_TMPDIR", home + "/pprof"},
                            {"GOTOOLCHAIN", "local"},
                            {"GOPROXY", "off"},
                            {"GOFLAGS", kUnset}});
}

}  // namespace umbra::testing
