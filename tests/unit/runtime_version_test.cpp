#include "profiler/runtime_version.h"

#include <gtest/gtest.h>

namespace umbra {
namespace {

TEST(RuntimeVersion, TheRuntimesStringWhenItAgreesWithItsNumbers) {
  EXPECT_EQ(runtime_version_from(8, 0, 33, u"8.0.33"), "8.0.33");
  EXPECT_EQ(runtime_version_from(10, 0, 12, u"10.0.12"), "10.0.12");
  EXPECT_EQ(runtime_version_from(10, 0, 0, u"10.0.0-rc.2.25502.107"), "10.0.0-rc.2.25502.107");
}

TEST(RuntimeVersion, TheNumbersWhenTheStringIsMissingOrSaysSomethingElse) {
  EXPECT_EQ(runtime_version_from(9, 0, 22, u""), "9.0.22");
  EXPECT_EQ(runtime_version_from(9, 0, 22, u"9.0.2"), "9.0.22");
  EXPECT_EQ(runtime_version_from(9, 0, 2, u"9.0.22"), "9.0.2");
  EXPECT_EQ(runtime_version_from(9, 0, 22, u"out"), "9.0.22");
  EXPECT_EQ(runtime_version_from(0, 0, 0, u""), "unknown");
}

}  // namespace
}  // namespace umbra
