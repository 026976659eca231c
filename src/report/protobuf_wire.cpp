#include "report/protobuf_wire.h"

namespace umbra::protobuf {
namespace {

enum WireType : uint32_t { kVarint = 0, kLengthDelimited = 2 };

void append_key(std::string& out, uint32_t field, WireType type) { append_varint(out, (uint64_t(field) << 3) | type); }

size_t varint_size(uint64_t value) {
  size_t size = 1;
  for (; value >= 0x80; value >>= 7) ++size;
  return size;
}

}  // namespace

void append_varint(std::string& out, uint64_t value) {
  char bytes[10];
  size_t n = 0;
  for (; value >= 0x80; value >>= 7) bytes[n++] = char(uint8_t(value) | 0x80);
  bytes[n++] = char(value);
  out.append(bytes, n);
}

void append_varint_field(std::string& out, uint32_t field, uint64_t value) {
  append_key(out, field, kVarint);
  append_varint(out, value);
}

void append_bytes_field(std::string& out, uint32_t field, std::string_view bytes) {
  append_key(out, field, kLengthDelimited);
  append_varint(out, bytes.size());
  out.append(bytes);
}

void append_packed_field(std::string& out, uint32_t field, std::span<const uint64_t> values) {
  size_t length = 0;
  for (uint64_t v : values) length += varint_size(v);
  append_key(out, field, kLengthDelimited);
  append_varint(out, length);
  for (uint64_t v : values) append_varint(out, v);
}

}  // namespace umbra::protobuf
