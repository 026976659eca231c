#include "profiler/process_identity.h"

#include <gtest/gtest.h>

namespace umbra {
namespace {

// What `dotnet build` and `dotnet test` start, and programs started on their own.
TEST(ProcessIdentity, TheProgramIsTheEntryAssemblyOrTheExecutable) {
  EXPECT_EQ(program_of({"dotnet", "/usr/share/dotnet/sdk/10.0.100/MSBuild.dll", "-nologo", "-nodemode:1"}),
            "MSBuild.dll");
  EXPECT_EQ(program_of({"/usr/share/dotnet/dotnet", "exec", "/sdk/Roslyn/bincore/csc.dll", "-noconfig"}), "csc.dll");
  EXPECT_EQ(program_of({"/usr/bin/dotnet", "exec", "--runtimeconfig", "/t/testhost.runtimeconfig.json", "--depsfile",
                        "/t/testhost.deps.json", "/t/testhost.dll", "--port", "40000"}),
            "testhost.dll");
  EXPECT_EQ(program_of({"dotnet", "--roll-forward", "Major", "App.dll"}), "App.dll");
  // The SDK's commands: the muxer runs the SDK in its own process, and the arguments name no assembly.
  EXPECT_EQ(program_of({"dotnet", "build", "-nodeReuse:false"}), "dotnet");
  EXPECT_EQ(program_of({"dotnet", "exec"}), "dotnet");
  // An app host, whatever its arguments.
  EXPECT_EQ(program_of({"/opt/app/KnownCounts", "Other.dll"}), "KnownCounts");
  EXPECT_EQ(program_of({"./testhost"}), "testhost");
  EXPECT_EQ(program_of({}), "");
}

TEST(ProcessIdentity, CmdlineArgumentsAreEachEndedByANul) {
  using Args = std::vector<std::string>;
  EXPECT_EQ(split_command_line(std::string_view("dotnet\0App.dll\0", 15)), (Args{"dotnet", "App.dll"}));
  EXPECT_EQ(split_command_line(std::string_view("a\0\0b\0\0", 6)), (Args{"a", "", "b", ""}));
  EXPECT_EQ(split_command_line(std::string_view("a\0b", 3)), (Args{"a", "b"}));  // cut short at the bound
  EXPECT_EQ(split_command_line(""), Args{});
}

TEST(ProcessIdentity, ThisProcessIsTheTestProgram) {
  ProcessIdentity self = this_process();
  ASSERT_FALSE(self.command_line.empty());
  EXPECT_NE(self.command_line[0].find("umbra_unit_tests"), std::string::npos) << self.command_line[0];
  EXPECT_EQ(self.program, "umbra_unit_tests");
}

}  // namespace
}  // namespace umbra
