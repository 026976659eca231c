#include "snapshot/debug_file_paths.h"

#include <gtest/gtest.h>

namespace umbra {
namespace {

TEST(DebugFilePaths, ByBuildIdUnderTheDebugRoot) {
  const unsigned char id[] = {0x93, 0xac, 0x61, 0x0e};
  EXPECT_EQ(build_id_debug_path("/usr/lib/debug", id, sizeof id), "/usr/lib/debug/.build-id/93/ac610e.debug");
  EXPECT_EQ(build_id_debug_path("/usr/lib/debug", id, 0), "");
}

TEST(DebugFilePaths, ByDebuglinkBesideTheModuleInItsDebugDirectoryAndUnderTheRoot) {
  EXPECT_EQ(debuglink_paths("/usr/lib/x86_64-linux-gnu/libz.so.1", "libz.so.1.debug", "/usr/lib/debug"),
            (std::vector<std::string>{"/usr/lib/x86_64-linux-gnu/libz.so.1.debug",
                                      "/usr/lib/x86_64-linux-gnu/.debug/libz.so.1.debug",
                                      "/usr/lib/debug/usr/lib/x86_64-linux-gnu/libz.so.1.debug"}));
}

}  // namespace
}  // namespace umbra
