// Protocol Buffers' wire format, written by hand: the few encodings a profile.proto writer needs (varints,
// length-delimited strings and messages, packed repeated varints), appended to a byte string. A message's fields may
// come in any order and a repeated field's elements may be spread among the others, so a writer can stream a large
// message field by field (report/pprof_writer.cpp).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace umbra::protobuf {

// Every integer field of profile.proto (uint64, int64, bool) is a varint; an int64 below 0 would take 10 bytes as
// its two's complement, which is what a cast to uint64_t gives.
void append_varint(std::string& out, uint64_t value);
void append_varint_field(std::string& out, uint32_t field, uint64_t value);

// A string, bytes or an embedded message: the field's key, the length, the bytes.
void append_bytes_field(std::string& out, uint32_t field, std::string_view bytes);

// A repeated integer field, packed (proto3's default): one key, the length, the varints.
void append_packed_field(std::string& out, uint32_t field, std::span<const uint64_t> values);

}  // namespace umbra::protobuf
