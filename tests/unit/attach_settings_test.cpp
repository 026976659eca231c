#include "profiler/attach_settings.h"

#include <gtest/gtest.h>

namespace umbra {
namespace {

AttachSettings example() {
  AttachSettings settings;
  settings.duration_ms = 5000;
  settings.control_dir = "/tmp/umbra-attach-Ab12Cd";
  settings.variables = {{"UMBRA_OUTPUT", "/home/me/a=b/umbra-42"}, {"UMBRA_INTERVAL_MS", "1"}};
  return settings;
}

TEST(AttachSettings, EncodedAsOneSettingALine) {
  std::string error;
  auto data = encode_attach_settings(example(), error);
  ASSERT_TRUE(data) << error;
  EXPECT_EQ(*data,
            "umbra-attach 1\n"
            "duration_ms=5000\n"
            "control=/tmp/umbra-attach-Ab12Cd\n"
            "UMBRA_INTERVAL_MS=1\n"
            "UMBRA_OUTPUT=/home/me/a=b/umbra-42\n");
}

TEST(AttachSettings, DecodeGivesBackWhatWasEncoded) {
  std::string error;
  auto decoded = decode_attach_settings(*encode_attach_settings(example(), error), error);
  ASSERT_TRUE(decoded) << error;
  EXPECT_EQ(*decoded, example());
}

TEST(AttachSettings, ValuesWithANewlineCannotBeSent) {
  AttachSettings settings = example();
  settings.variables["UMBRA_OUTPUT"] = "/tmp/two\nlines";
  std::string error;
  EXPECT_FALSE(encode_attach_settings(settings, error));
  EXPECT_EQ(error, "UMBRA_OUTPUT holds a newline or NUL character, which attach cannot pass on");
  settings = example();
  settings.variables["PATH"] = "/bin";
  EXPECT_FALSE(encode_attach_settings(settings, error));
  EXPECT_EQ(error, "'PATH' is not an UMBRA_ variable");
}

TEST(AttachSettings, AnythingElseIsRefusedWithItsReason) {
  struct Case {
    const char* data;
    const char* error;
  } cases[] = {
      {"", "the settings do not start with 'umbra-attach 1'"},
      {"umbra-attach 2\nduration_ms=1\ncontrol=/c\n", "the settings do not start with 'umbra-attach 1'"},
      {"umbra-attach 1\nduration_ms=1\ncontrol=/c", "the settings do not end with a newline"},
      {"umbra-attach 1\ncontrol=/c\n", "the settings lack duration_ms or an absolute control directory"},
      {"umbra-attach 1\nduration_ms=1\ncontrol=relative\n",
       "the settings lack duration_ms or an absolute control directory"},
      {"umbra-attach 1\nduration_ms=5s\ncontrol=/c\n", "duration_ms '5s' is not a whole number of milliseconds"},
      {"umbra-attach 1\nduration_ms=99999999999\ncontrol=/c\n",
       "duration_ms '99999999999' is not a whole number of milliseconds"},
      {"umbra-attach 1\nduration_ms=1\ncontrol=/c\nnonsense\n", "line 4 is not NAME=VALUE"},
      {"umbra-attach 1\nduration_ms=1\ncontrol=/c\ncolour=red\n", "line 4 sets 'colour', which umbra does not know"},
      {"umbra-attach 1\nduration_ms=1\ncontrol=/c\nUMBRA_mode=x\n",
       "line 4 sets 'UMBRA_mode', which umbra does not know"},
  };
  for (const auto& c : cases) {
    std::string error;
    EXPECT_FALSE(decode_attach_settings(c.data, error)) << c.data;
    EXPECT_EQ(error, c.error) << c.data;
  }
}

}  // namespace
}  // namespace umbra
