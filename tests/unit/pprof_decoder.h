// Reads back what the pprof writer wrote, for its tests: gunzips with zlib and decodes the protobuf wire format
// independently of src/report/protobuf_wire.cpp (field by field, every wire type checked), into the parts of
// profile.proto the writer fills. Malformed input fails the test that reads it.
#pragma once

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace umbra::testing {

inline std::string gunzip(std::string_view gz) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) throw std::runtime_error("inflateInit2");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  z.avail_in = uInt(gz.size());
  std::string out;
  int status = Z_OK;
  while (status == Z_OK) {
    char chunk[1 << 16];
    z.next_out = reinterpret_cast<Bytef*>(chunk);
    z.avail_out = sizeof chunk;
    status = inflate(&z, Z_NO_FLUSH);
    out.append(chunk, sizeof chunk - z.avail_out);
  }
  bool whole = status == Z_STREAM_END && z.avail_in == 0;
  inflateEnd(&z);
  if (!whole) throw std::runtime_error("not one whole gzip member");
  return out;
}

struct WireField {
  uint32_t number = 0;
  bool length_delimited = false;
  uint64_t varint = 0;     // wire type 0
  std::string_view bytes;  // wire type 2
};

inline uint64_t read_varint(std::string_view& in) {
  uint64_t value = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (in.empty()) throw std::runtime_error("varint runs past the end");
    uint8_t byte = uint8_t(in[0]);
    in.remove_prefix(1);
    value |= uint64_t(byte & 0x7f) << shift;
    if (!(byte & 0x80)) return value;
  }
  throw std::runtime_error("varint longer than 10 bytes");
}

inline std::vector<WireField> read_fields(std::string_view in) {
  std::vector<WireField> fields;
  while (!in.empty()) {
    uint64_t key = read_varint(in);
    WireField f;
    f.number = uint32_t(key >> 3);
    switch (key & 7) {
      case 0: f.varint = read_varint(in); break;
      case 2: {
        uint64_t length = read_varint(in);
        if (length > in.size()) throw std::runtime_error("length past the end");
        f.length_delimited = true;
        f.bytes = in.substr(0, length);
        in.remove_prefix(length);
        break;
      }
      default: throw std::runtime_error("wire type " + std::to_string(key & 7) + " is not one the writer uses");
    }
    fields.push_back(f);
  }
  return fields;
}

inline std::vector<uint64_t> read_packed(std::string_view in) {
  std::vector<uint64_t> values;
  while (!in.empty()) values.push_back(read_varint(in));
  return values;
}

// profile.proto, as far as the writer fills it; strings resolved through the string table.
struct DecodedProfile {
  struct Sample {
    std::vector<uint64_t> location_ids;  // leaf first
    std::vector<uint64_t> values;
    std::map<std::string, std::string> string_labels;
    std::map<std::string, uint64_t> number_labels;
  };
  struct Function {
    std::string name, system_name, filename;
  };
  struct Location {
    uint64_t mapping_id = 0;
    std::vector<uint64_t> function_ids;
  };
  struct Mapping {
    std::string filename;
    bool has_functions = false;
  };
  std::vector<std::string> strings;
  std::vector<std::pair<std::string, std::string>> sample_types;  // type, unit
  std::pair<std::string, std::string> period_type;
  uint64_t period = 0, duration_nanos = 0;
  std::string default_sample_type;
  std::vector<std::string> comments;
  std::vector<Sample> samples;
  std::map<uint64_t, Function> functions;
  std::map<uint64_t, Location> locations;
  std::map<uint64_t, Mapping> mappings;

  // The function names of a sample's stack, root first.
  std::vector<std::string> stack(const Sample& s) const {
    std::vector<std::string> names;
    for (auto id = s.location_ids.rbegin(); id != s.location_ids.rend(); ++id)
      names.push_back(functions.at(locations.at(*id).function_ids.at(0)).name);
    return names;
  }
};

inline DecodedProfile decode_profile(std::string_view gz) {
  std::string raw = gunzip(gz);
  std::vector<WireField> top = read_fields(raw);
  DecodedProfile p;
  for (const auto& f : top)
    if (f.number == 6) p.strings.emplace_back(f.bytes);
  if (p.strings.empty() || !p.strings[0].empty()) throw std::runtime_error("string_table[0] is not \"\"");
  auto str = [&](uint64_t i) -> std::string {
    if (i >= p.strings.size()) throw std::runtime_error("string index out of range");
    return p.strings[i];
  };
  auto value_type = [&](std::string_view bytes) {
    std::pair<std::string, std::string> vt;
    for (const auto& f : read_fields(bytes)) (f.number == 1 ? vt.first : vt.second) = str(f.varint);
    return vt;
  };
  for (const auto& f : top) {
    switch (f.number) {
      case 1: p.sample_types.push_back(value_type(f.bytes)); break;
      case 2: {
        DecodedProfile::Sample s;
        for (const auto& sf : read_fields(f.bytes)) {
          if (sf.number == 1) s.location_ids = read_packed(sf.bytes);
          if (sf.number == 2) s.values = read_packed(sf.bytes);
          if (sf.number == 3) {
            std::string key;
            std::optional<std::string> text;
            uint64_t num = 0;
            for (const auto& lf : read_fields(sf.bytes)) {
              if (lf.number == 1) key = str(lf.varint);
              if (lf.number == 2) text = str(lf.varint);
              if (lf.number == 3) num = lf.varint;
            }
            if (text) s.string_labels[key] = *text;
            else s.number_labels[key] = num;
          }
        }
        p.samples.push_back(s);
        break;
      }
      case 3: {
        uint64_t id = 0;
        DecodedProfile::Mapping m;
        for (const auto& mf : read_fields(f.bytes)) {
          if (mf.number == 1) id = mf.varint;
          if (mf.number == 5) m.filename = str(mf.varint);
          if (mf.number == 7) m.has_functions = mf.varint != 0;
        }
        p.mappings[id] = m;
        break;
      }
      case 4: {
        uint64_t id = 0;
        DecodedProfile::Location l;
        for (const auto& lf : read_fields(f.bytes)) {
          if (lf.number == 1) id = lf.varint;
          if (lf.number == 2) l.mapping_id = lf.varint;
          if (lf.number == 4)
            for (const auto& line : read_fields(lf.bytes))
              if (line.number == 1) l.function_ids.push_back(line.varint);
        }
        p.locations[id] = l;
        break;
      }
      case 5: {
        uint64_t id = 0;
        DecodedProfile::Function fn;
        for (const auto& ff : read_fields(f.bytes)) {
          if (ff.number == 1) id = ff.varint;
          if (ff.number == 2) fn.name = str(ff.varint);
          if (ff.number == 3) fn.system_name = str(ff.varint);
          if (ff.number == 4) fn.filename = str(ff.varint);
        }
        p.functions[id] = fn;
        break;
      }
      case 10: p.duration_nanos = f.varint; break;
      case 11: p.period_type = value_type(f.bytes); break;
      case 12: p.period = f.varint; break;
      case 13: p.comments.push_back(str(f.varint)); break;
      case 14: p.default_sample_type = str(f.varint); break;
    }
  }
  return p;
}

}  // namespace umbra::testing
