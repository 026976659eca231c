#include "names/assembly_metadata.h"

#include <gtest/gtest.h>
#include <glob.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>

namespace umbra {
namespace {

// System.Private.CoreLib.dll of the runtime that the `dotnet` on PATH runs (the test suite needs the .NET SDK).
std::string core_library() {
  std::string dotnet;
  std::istringstream path(std::getenv("PATH") ? std::getenv("PATH") : "");
  for (std::string dir; std::getline(path, dir, ':');)
    if (access((dir + "/dotnet").c_str(), X_OK) == 0) {
      char real[PATH_MAX];
      if (realpath((dir + "/dotnet").c_str(), real) != nullptr) dotnet = real;
      break;
    }
  if (dotnet.empty()) return "";
  std::string pattern = dotnet.substr(0, dotnet.rfind('/')) + "/shared/Microsoft.NETCore.App/*/System.Private.CoreLib.dll";
  glob_t found{};
  std::string first;
  if (glob(pattern.c_str(), 0, nullptr, &found) == 0 && found.gl_pathc > 0) first = found.gl_pathv[0];
  globfree(&found);
  return first;
}

std::set<std::string> every_method_name(const AssemblyMetadata& metadata) {
  std::set<std::string> names;
  for (uint32_t row = 1; row <= metadata.method_count(); ++row)
    if (std::optional<std::string> name = metadata.method_name(0x06000000 | row)) names.insert(*name);
  return names;
}

TEST(AssemblyMetadata, NamesTheMethodsOfTheCoreLibraryAsTheRuntimeDoes) {
  std::string path = core_library();
  ASSERT_FALSE(path.empty()) << "no System.Private.CoreLib.dll beside the dotnet on PATH";
  std::unique_ptr<AssemblyMetadata> metadata = AssemblyMetadata::open(path);
  ASSERT_TRUE(metadata) << path;
  EXPECT_GT(metadata->method_count(), 10000u);
  std::set<std::string> names = every_method_name(*metadata);
  for (const char* expected : {
           "System.String.Concat",                                           // a top-level type in a namespace
           "System.Collections.Generic.List`1+Enumerator.MoveNext",          // nested in a generic type
           "System.Runtime.CompilerServices.RuntimeHelpers.DispatchTailCalls",  // FunctionNames looks for it
           "System.Threading.Tasks.Task.InternalWait",
       })
    EXPECT_EQ(names.count(expected), 1u) << expected;
  EXPECT_EQ(names.count(""), 0u);
  EXPECT_FALSE(metadata->method_name(0x06000000));                                   // row 0 is no row
  EXPECT_FALSE(metadata->method_name(0x06000000 | (metadata->method_count() + 1)));  // past the table
  EXPECT_FALSE(metadata->method_name(0x02000001));                                   // a TypeDef token
}

TEST(AssemblyMetadata, AFileThatIsNoAssemblyIsLeftToTheRuntime) {
  EXPECT_FALSE(AssemblyMetadata::open(""));
  EXPECT_FALSE(AssemblyMetadata::open("/nonexistent/file.dll"));
  EXPECT_FALSE(AssemblyMetadata::open("/proc/self/exe"));  // an ELF file
  std::string path = core_library();
  ASSERT_FALSE(path.empty());
  std::ifstream in(path, std::ios::binary);
  std::string whole((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(whole.size(), 65536u);
  // Cut short: the headers point past the end of the file.
  char temporary[] = "/tmp/umbra-metadata-XXXXXX";
  int fd = mkstemp(temporary);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, whole.data(), 65536), 65536);
  close(fd);
  EXPECT_FALSE(AssemblyMetadata::open(temporary));
  unlink(temporary);
}

}  // namespace
}  // namespace umbra
