#include "names/assembly_metadata.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <initializer_list>

namespace umbra {
namespace {

// Tables of ECMA-335 II.22, by number, as far as a row size is needed.
enum : int {
  kModule = 0x00, kTypeRef = 0x01, kTypeDef = 0x02, kFieldPtr = 0x03, kField = 0x04, kMethodPtr = 0x05,
  kMethodDef = 0x06, kParamPtr = 0x07, kParam = 0x08, kInterfaceImpl = 0x09, kMemberRef = 0x0A, kConstant = 0x0B,
  kCustomAttribute = 0x0C, kFieldMarshal = 0x0D, kDeclSecurity = 0x0E, kClassLayout = 0x0F, kFieldLayout = 0x10,
  kStandAloneSig = 0x11, kEventMap = 0x12, kEventPtr = 0x13, kEvent = 0x14, kPropertyMap = 0x15, kPropertyPtr = 0x16,
  kProperty = 0x17, kMethodSemantics = 0x18, kMethodImpl = 0x19, kModuleRef = 0x1A, kTypeSpec = 0x1B,
  kImplMap = 0x1C, kFieldRva = 0x1D, kEncLog = 0x1E, kEncMap = 0x1F, kAssembly = 0x20, kAssemblyProcessor = 0x21,
  kAssemblyOs = 0x22, kAssemblyRef = 0x23, kAssemblyRefProcessor = 0x24, kAssemblyRefOs = 0x25, kFile = 0x26,
  kExportedType = 0x27, kManifestResource = 0x28, kNestedClass = 0x29, kGenericParam = 0x2A, kMethodSpec = 0x2B,
  kGenericParamConstraint = 0x2C,
};

bool within(size_t offset, size_t length, size_t size) { return offset <= size && length <= size - offset; }

}  // namespace

std::unique_ptr<AssemblyMetadata> AssemblyMetadata::open(const std::string& path) {
  if (path.empty()) return nullptr;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  struct stat st {};
  void* mapped = MAP_FAILED;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 512)
    mapped = ::mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (mapped == MAP_FAILED) return nullptr;
  std::unique_ptr<AssemblyMetadata> metadata(new AssemblyMetadata(static_cast<const uint8_t*>(mapped), size_t(st.st_size)));
  if (!metadata->parse()) return nullptr;
  return metadata;
}

AssemblyMetadata::~AssemblyMetadata() { ::munmap(const_cast<uint8_t*>(file_), size_); }

// PE headers -> CLI header -> metadata root -> the #~ and #Strings streams (ECMA-335 II.24-25).
bool AssemblyMetadata::parse() {
  if (file_[0] != 'M' || file_[1] != 'Z') return false;
  uint32_t pe = load32(file_ + 0x3C);
  if (!within(pe, 24, size_) || std::memcmp(file_ + pe, "PE\0\0", 4) != 0) return false;
  uint32_t sections = load16(file_ + pe + 6);
  uint32_t optional_size = load16(file_ + pe + 20);
  size_t optional = pe + 24;
  if (!within(optional, optional_size, size_) || optional_size < 2) return false;
  uint32_t magic = load16(file_ + optional);
  size_t directories_at = magic == 0x20b ? 112 : magic == 0x10b ? 96 : 0;
  if (directories_at == 0 || directories_at + 15 * 8 > optional_size) return false;
  size_t section_table = optional + optional_size;
  if (!within(section_table, size_t(sections) * 40, size_)) return false;
  auto file_offset = [&](uint32_t rva, uint32_t length) -> std::optional<size_t> {
    for (uint32_t i = 0; i < sections; ++i) {
      const uint8_t* section = file_ + section_table + i * 40;
      uint32_t virtual_size = load32(section + 8), address = load32(section + 12);
      uint32_t raw_size = load32(section + 16), raw_at = load32(section + 20);
      uint32_t extent = virtual_size > raw_size ? virtual_size : raw_size;
      if (rva >= address && rva - address < extent) {
        size_t offset = size_t(raw_at) + (rva - address);
        if (!within(offset, length, size_) || rva - address + uint64_t(length) > raw_size) return std::nullopt;
        return offset;
      }
    }
    return std::nullopt;
  };
  const uint8_t* cli_directory = file_ + optional + directories_at + 14 * 8;
  std::optional<size_t> cli = file_offset(load32(cli_directory), 24);
  if (!cli) return false;
  uint32_t root_size = load32(file_ + *cli + 12);
  std::optional<size_t> root_at = file_offset(load32(file_ + *cli + 8), root_size);
  if (!root_at || root_size < 20) return false;
  const uint8_t* root = file_ + *root_at;
  if (load32(root) != 0x424A5342) return false;  // "BSJB"
  uint32_t version_length = load32(root + 12);
  if (version_length > root_size - 20) return false;
  size_t at = 16 + version_length + 2;  // past the version string and the flags
  uint32_t streams = load16(root + at);
  at += 2;
  const uint8_t* tables = nullptr;
  size_t tables_size = 0;
  for (uint32_t i = 0; i < streams; ++i) {
    if (!within(at, 9, root_size)) return false;
    uint32_t offset = load32(root + at), size = load32(root + at + 4);
    const char* name = reinterpret_cast<const char*>(root + at + 8);
    size_t name_length = strnlen(name, root_size - at - 8);
    if (name_length >= 32 || name_length == root_size - at - 8) return false;
    at += 8 + ((name_length + 4) & ~size_t(3));
    if (!within(offset, size, root_size)) return false;
    if (std::strcmp(name, "#~") == 0) {
      tables = root + offset;
      tables_size = size;
    } else if (std::strcmp(name, "#Strings") == 0) {
      strings_ = root + offset;
      strings_size_ = size;
    } else if (std::strcmp(name, "#-") == 0) {
      return false;  // uncompressed (edit-and-continue) tables: left to the runtime
    }
  }
  return tables != nullptr && strings_ != nullptr && parse_tables(tables, tables_size);
}

bool AssemblyMetadata::parse_tables(const uint8_t* stream, size_t stream_size) {
  if (stream_size < 24) return false;
  uint8_t heap_sizes = stream[6];
  uint64_t valid = uint64_t(load32(stream + 8)) | uint64_t(load32(stream + 12)) << 32;
  size_t at = 24;
  for (int t = 0; t < kTables; ++t) {
    if ((valid >> t & 1) == 0) continue;
    if (!within(at, 4, stream_size)) return false;
    tables_[t].rows = load32(stream + at);
    at += 4;
  }
  if (heap_sizes & 0x40) at += 4;  // the runtime's "extra data" flag: four bytes after the row counts
  wide_strings_ = heap_sizes & 0x01;
  const uint32_t s = wide_strings_ ? 4 : 2, g = heap_sizes & 0x02 ? 4 : 2, b = heap_sizes & 0x04 ? 4 : 2;
  auto index = [&](int t) -> uint32_t { return tables_[t].rows < 0x10000 ? 2 : 4; };
  auto coded = [&](int tag_bits, std::initializer_list<int> targets) -> uint32_t {
    uint32_t most = 0;
    for (int t : targets)
      if (tables_[t].rows > most) most = tables_[t].rows;
    return most < (1u << (16 - tag_bits)) ? 2 : 4;
  };
  const uint32_t type_def_or_ref = coded(2, {kTypeDef, kTypeRef, kTypeSpec});
  const uint32_t has_constant = coded(2, {kField, kParam, kProperty});
  const uint32_t has_custom_attribute =
      coded(5, {kMethodDef, kField, kTypeRef, kTypeDef, kParam, kInterfaceImpl, kMemberRef, kModule, kDeclSecurity,
                kProperty, kEvent, kStandAloneSig, kModuleRef, kTypeSpec, kAssembly, kAssemblyRef, kFile,
                kExportedType, kManifestResource, kGenericParam, kGenericParamConstraint, kMethodSpec});
  const uint32_t has_field_marshal = coded(1, {kField, kParam});
  const uint32_t has_decl_security = coded(2, {kTypeDef, kMethodDef, kAssembly});
  const uint32_t member_ref_parent = coded(3, {kTypeDef, kTypeRef, kModuleRef, kMethodDef, kTypeSpec});
  const uint32_t has_semantics = coded(1, {kEvent, kProperty});
  const uint32_t method_def_or_ref = coded(1, {kMethodDef, kMemberRef});
  const uint32_t member_forwarded = coded(1, {kField, kMethodDef});
  const uint32_t implementation = coded(2, {kFile, kAssemblyRef, kExportedType});
  const uint32_t custom_attribute_type = coded(3, {kMethodDef, kMemberRef});
  const uint32_t resolution_scope = coded(2, {kModule, kModuleRef, kAssemblyRef, kTypeRef});
  uint32_t row_size[kNestedClass + 1] = {};
  row_size[kModule] = 2 + s + 3 * g;
  row_size[kTypeRef] = resolution_scope + 2 * s;
  row_size[kTypeDef] = 4 + 2 * s + type_def_or_ref + index(kField) + index(kMethodDef);
  row_size[kFieldPtr] = index(kField);
  row_size[kField] = 2 + s + b;
  row_size[kMethodPtr] = index(kMethodDef);
  row_size[kMethodDef] = 4 + 2 + 2 + s + b + index(kParam);
  row_size[kParamPtr] = index(kParam);
  row_size[kParam] = 2 + 2 + s;
  row_size[kInterfaceImpl] = index(kTypeDef) + type_def_or_ref;
  row_size[kMemberRef] = member_ref_parent + s + b;
  row_size[kConstant] = 2 + has_constant + b;
  row_size[kCustomAttribute] = has_custom_attribute + custom_attribute_type + b;
  row_size[kFieldMarshal] = has_field_marshal + b;
  row_size[kDeclSecurity] = 2 + has_decl_security + b;
  row_size[kClassLayout] = 2 + 4 + index(kTypeDef);
  row_size[kFieldLayout] = 4 + index(kField);
  row_size[kStandAloneSig] = b;
  row_size[kEventMap] = index(kTypeDef) + index(kEvent);
  row_size[kEventPtr] = index(kEvent);
  row_size[kEvent] = 2 + s + type_def_or_ref;
  row_size[kPropertyMap] = index(kTypeDef) + index(kProperty);
  row_size[kPropertyPtr] = index(kProperty);
  row_size[kProperty] = 2 + s + b;
  row_size[kMethodSemantics] = 2 + index(kMethodDef) + has_semantics;
  row_size[kMethodImpl] = index(kTypeDef) + 2 * method_def_or_ref;
  row_size[kModuleRef] = s;
  row_size[kTypeSpec] = b;
  row_size[kImplMap] = 2 + member_forwarded + s + index(kModuleRef);
  row_size[kFieldRva] = 4 + index(kField);
  row_size[kEncLog] = 8;
  row_size[kEncMap] = 4;
  row_size[kAssembly] = 4 + 2 * 4 + 4 + b + 2 * s;
  row_size[kAssemblyProcessor] = 4;
  row_size[kAssemblyOs] = 12;
  row_size[kAssemblyRef] = 2 * 4 + 4 + b + 2 * s + b;
  row_size[kAssemblyRefProcessor] = 4 + index(kAssemblyRef);
  row_size[kAssemblyRefOs] = 12 + index(kAssemblyRef);
  row_size[kFile] = 4 + s + b;
  row_size[kExportedType] = 4 + 4 + 2 * s + implementation;
  row_size[kManifestResource] = 4 + 4 + s + implementation;
  row_size[kNestedClass] = 2 * index(kTypeDef);
  for (int t = 0; t <= kNestedClass; ++t) {
    size_t bytes = size_t(tables_[t].rows) * row_size[t];
    if (!within(at, bytes, stream_size)) return false;
    tables_[t].data = stream + at;
    tables_[t].row_size = row_size[t];
    at += bytes;
  }
  // Method lists through MethodPtr belong to uncompressed tables; a compressed stream has none.
  if (tables_[kMethodPtr].rows != 0) return false;
  typedef_name_ = 4;
  typedef_namespace_ = 4 + s;
  typedef_method_list_ = 4 + 2 * s + type_def_or_ref + index(kField);
  methoddef_name_ = 8;
  wide_method_index_ = index(kMethodDef) == 4;
  wide_type_index_ = index(kTypeDef) == 4;
  return true;
}

const char* AssemblyMetadata::string_at(uint32_t index) const {
  if (index >= strings_size_) return "";
  const char* text = reinterpret_cast<const char*>(strings_ + index);
  // A string runs to its NUL, which must be inside the heap.
  return memchr(text, 0, strings_size_ - index) != nullptr ? text : "";
}

// NestedClass is sorted by its first column (II.22): a binary search.
uint32_t AssemblyMetadata::nested_enclosing(uint32_t type_row) const {
  const Table& nested = tables_[kNestedClass];
  uint32_t low = 0, high = nested.rows;
  while (low < high) {
    uint32_t middle = low + (high - low) / 2;
    const uint8_t* row = nested.data + size_t(middle) * nested.row_size;
    uint32_t inner = read_index(row, wide_type_index_);
    if (inner == type_row) return read_index(row + (wide_type_index_ ? 4 : 2), wide_type_index_);
    if (inner < type_row) low = middle + 1;
    else high = middle;
  }
  return 0;
}

std::string AssemblyMetadata::type_name(uint32_t type_row) const {
  std::string result;
  const Table& types = tables_[kTypeDef];
  for (int nesting = 0; nesting < 64 && type_row >= 1 && type_row <= types.rows; ++nesting) {
    const uint8_t* row = types.data + size_t(type_row - 1) * types.row_size;
    std::string part = string_at(read_index(row + typedef_name_, wide_strings_));
    // As IMetaDataImport's GetTypeDefProps: the namespace wherever it is not empty (C# leaves a nested type's empty).
    std::string space = string_at(read_index(row + typedef_namespace_, wide_strings_));
    if (!space.empty()) part = space + "." + part;
    uint32_t enclosing = nested_enclosing(type_row);
    result = result.empty() ? part : part + "+" + result;
    if (enclosing == 0) break;
    type_row = enclosing;
  }
  return result;
}

uint32_t AssemblyMetadata::method_count() const { return tables_[kMethodDef].rows; }

std::optional<std::string> AssemblyMetadata::method_name(uint32_t method_token) const {
  uint32_t method_row = method_token & 0x00FFFFFF;
  const Table& methods = tables_[kMethodDef];
  if ((method_token >> 24) != uint32_t(kMethodDef) || method_row == 0 || method_row > methods.rows)
    return std::nullopt;
  const uint8_t* row = methods.data + size_t(method_row - 1) * methods.row_size;
  std::string method = string_at(read_index(row + methoddef_name_, wide_strings_));
  // The owner: the last type whose method list starts at or before the method (types with no methods share their
  // start with the next type).
  const Table& types = tables_[kTypeDef];
  uint32_t low = 0, high = types.rows;  // the answer is in [low, high): the count of types starting <= method_row
  while (low < high) {
    uint32_t middle = low + (high - low) / 2;
    const uint8_t* type = types.data + size_t(middle) * types.row_size;
    if (read_index(type + typedef_method_list_, wide_method_index_) <= method_row) low = middle + 1;
    else high = middle;
  }
  std::string type = low == 0 ? std::string() : type_name(low);
  return type.empty() || type == "<Module>" ? method : type + "." + method;
}

}  // namespace umbra
