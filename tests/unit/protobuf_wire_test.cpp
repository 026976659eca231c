#include "report/protobuf_wire.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace umbra::protobuf {
namespace {

std::string hex(const std::string& bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    if (!out.empty()) out += ' ';
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

std::string varint(uint64_t v) {
  std::string out;
  append_varint(out, v);
  return hex(out);
}

TEST(ProtobufWire, Varints) {
  EXPECT_EQ(varint(0), "00");
  EXPECT_EQ(varint(1), "01");
  EXPECT_EQ(varint(127), "7f");
  EXPECT_EQ(varint(128), "80 01");
  EXPECT_EQ(varint(300), "ac 02");
  EXPECT_EQ(varint(UINT64_MAX), "ff ff ff ff ff ff ff ff ff 01");
  // An int64 field holding -1: its two's complement, ten bytes.
  EXPECT_EQ(varint(uint64_t(int64_t(-1))), "ff ff ff ff ff ff ff ff ff 01");
}

// The examples of the protobuf encoding guide (protobuf.dev/programming-guides/encoding).
TEST(ProtobufWire, TheEncodingGuidesExamples) {
  std::string out;
  append_varint_field(out, 1, 150);
  EXPECT_EQ(hex(out), "08 96 01");
  out.clear();
  append_bytes_field(out, 2, "testing");
  EXPECT_EQ(hex(out), "12 07 74 65 73 74 69 6e 67");
  out.clear();
  std::vector<uint64_t> values = {3, 270, 86942};
  append_packed_field(out, 4, values);
  EXPECT_EQ(hex(out), "22 06 03 8e 02 9e a7 05");
}

TEST(ProtobufWire, EmptyAndLongFields) {
  std::string out;
  append_bytes_field(out, 6, "");
  EXPECT_EQ(hex(out), "32 00");  // the string table's first entry
  out.clear();
  append_packed_field(out, 1, {});
  EXPECT_EQ(hex(out), "0a 00");
  out.clear();
  append_bytes_field(out, 16, std::string(200, 'x'));  // a two-byte key and a two-byte length
  EXPECT_EQ(hex(out.substr(0, 4)), "82 01 c8 01");
  EXPECT_EQ(out.size(), 204u);
}

}  // namespace
}  // namespace umbra::protobuf
