#include "names/method_patterns.h"

#include <gtest/gtest.h>

#include "names/hook_selection.h"

namespace umbra {
namespace {

MethodPatterns parsed(const std::string& text) {
  auto patterns = MethodPatterns::parse(text);
  EXPECT_TRUE(patterns) << text;
  return patterns.value_or(MethodPatterns{});
}

TEST(GlobMatch, StarTakesAnyRunDotsIncludedAndQuestionMarkOneCharacter) {
  EXPECT_TRUE(glob_match("Orders.*", "Orders.Price", false));
  EXPECT_TRUE(glob_match("*.Price", "Shop.Orders+Line.Price", false));
  EXPECT_TRUE(glob_match("Or?ers.*e", "Orders.Price", false));
  EXPECT_TRUE(glob_match("*", "", false));
  EXPECT_FALSE(glob_match("Orders.*", "Order.Price", false));
  EXPECT_FALSE(glob_match("*.Price", "Orders.PriceOf", false));
  EXPECT_FALSE(glob_match("orders.*", "Orders.Price", false));
  EXPECT_TRUE(glob_match("webapi", "WebApi", true));
  EXPECT_TRUE(glob_match("a*b*c", "aXbYbZc", false));
  EXPECT_FALSE(glob_match("a*b*c", "aXbYbZ", false));
}

TEST(MethodPatterns, AnAssemblyInBracketsTakesEveryMethodOfItInAnyCase) {
  MethodPatterns p = parsed("[webapi]");
  EXPECT_TRUE(p.hooks("WebApi", "Orders.Price", false));
  EXPECT_FALSE(p.hooks("WebApi.Tests", "Orders.Price", false));
  EXPECT_FALSE(p.hooks("System.Private.CoreLib", "System.String.Concat", true));
  EXPECT_FALSE(p.names_matter("WebApi"));
}

TEST(MethodPatterns, AMethodGlobAppliesToEveryAssemblyAndAnAssemblyNarrowsIt) {
  MethodPatterns any = parsed("Orders.*");
  EXPECT_TRUE(any.hooks("WebApi", "Orders.Price", false));
  EXPECT_TRUE(any.hooks("Other", "Orders.Tax", false));
  EXPECT_FALSE(any.hooks("WebApi", "Program.Main", false));
  EXPECT_TRUE(any.names_matter("WebApi"));
  EXPECT_TRUE(any.names_matter("System.Linq"));
  MethodPatterns narrow = parsed("[WebApi]Orders.*");
  EXPECT_TRUE(narrow.hooks("WebApi", "Orders.Price", false));
  EXPECT_FALSE(narrow.hooks("Other", "Orders.Price", false));
  // Only the assembly a method pattern names needs its methods named.
  EXPECT_TRUE(narrow.names_matter("webapi"));
  EXPECT_FALSE(narrow.names_matter("System.Linq"));
  EXPECT_TRUE(parsed("@app, ![WebApi]*.Log").names_matter("WebApi"));
  EXPECT_FALSE(parsed("@app, ![WebApi]*.Log").names_matter("Other"));
}

TEST(MethodPatterns, ExclusionsWinAndAloneTheyLeaveEverythingElseHooked) {
  MethodPatterns p = parsed("[WebApi]; !*.Tick ,!Orders.Log*");
  EXPECT_TRUE(p.hooks("WebApi", "Orders.Price", false));
  EXPECT_FALSE(p.hooks("WebApi", "Clock.Tick", false));
  EXPECT_FALSE(p.hooks("WebApi", "Orders.LogLine", false));
  MethodPatterns only_exclusions = parsed("![System.*]");
  EXPECT_TRUE(only_exclusions.hooks("WebApi", "Orders.Price", false));
  EXPECT_FALSE(only_exclusions.hooks("System.Linq", "System.Linq.Enumerable.Sum", true));
  EXPECT_TRUE(only_exclusions.hooks("Microsoft.AspNetCore", "X.Y", true));
}

TEST(MethodPatterns, AppMeansEveryAssemblyOutsideTheSharedFramework) {
  MethodPatterns app = parsed("@app");
  EXPECT_TRUE(app.hooks("WebApi", "Orders.Price", false));
  EXPECT_FALSE(app.hooks("System.Private.CoreLib", "System.String.Concat", true));
  MethodPatterns plus = parsed("@app, [System.Text.Json], !Program.*");
  EXPECT_TRUE(plus.hooks("System.Text.Json", "System.Text.Json.JsonSerializer.Serialize", true));
  EXPECT_FALSE(plus.hooks("System.Linq", "System.Linq.Enumerable.Sum", true));
  EXPECT_FALSE(plus.hooks("WebApi", "Program.Main", false));
}

TEST(MethodPatterns, EveryKindOfBadItemIsNamed) {
  struct Bad {
    const char *text, *item;
  } cases[] = {
      {"[WebApi", "[WebApi"},       {"[]Orders.*", "[]Orders.*"},  {"a,!", "!"},
      {"@framework", "@framework"}, {"!@app", "!@app"},             {"Orders Price", "Orders Price"},
      {"[Web Api]", "[Web Api]"},   {"[A]]B", "[A]]B"},            {" , ;", " , ;"},
      {"", ""},
  };
  for (const Bad& c : cases) {
    std::string bad;
    EXPECT_FALSE(MethodPatterns::parse(c.text, &bad)) << c.text;
    EXPECT_EQ(bad, c.item) << c.text;
  }
}

TEST(FrameworkAssemblies, ByNameAndByTheSharedFrameworkDirectory) {
  EXPECT_TRUE(is_framework_assembly_name("System.Private.CoreLib"));
  EXPECT_TRUE(is_framework_assembly_name("Microsoft.AspNetCore.Http"));
  EXPECT_TRUE(is_framework_assembly_name("netstandard"));
  EXPECT_TRUE(is_framework_assembly_name("System"));
  EXPECT_FALSE(is_framework_assembly_name("SystemTools"));
  EXPECT_FALSE(is_framework_assembly_name("WebApi"));
  EXPECT_TRUE(in_shared_framework("/usr/lib/dotnet/shared/Microsoft.NETCore.App/10.0.12/System.Runtime.dll"));
  EXPECT_TRUE(in_shared_framework("/opt/dn/shared/Microsoft.AspNetCore.App/10.0.1/Microsoft.AspNetCore.dll"));
  EXPECT_FALSE(in_shared_framework("/home/me/shared/bin/WebApi.dll"));
  EXPECT_FALSE(in_shared_framework("/srv/app/WebApi.dll"));
  EXPECT_FALSE(in_shared_framework("WebApi.dll"));
  EXPECT_EQ(assembly_name_of("/srv/app/WebApi.dll"), "WebApi");
  EXPECT_EQ(assembly_name_of("/srv/app/Tool.exe"), "Tool");
  EXPECT_EQ(assembly_name_of("Lib.Core.dll"), "Lib.Core");
}

}  // namespace
}  // namespace umbra
