#include "snapshot/mapping_query.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

namespace umbra {
namespace {

// The kernel's interface (include/uapi/linux/fs.h, Linux 6.11), declared here: the system's headers may predate it.
struct ProcmapQuery {
  uint64_t size;
  uint64_t query_flags;
  uint64_t query_addr;
  uint64_t vma_start;
  uint64_t vma_end;
  uint64_t vma_flags;
  uint64_t vma_page_size;
  uint64_t vma_offset;
  uint64_t inode;
  uint32_t dev_major;
  uint32_t dev_minor;
  uint32_t vma_name_size;
  uint32_t build_id_size;
  uint64_t vma_name_addr;
  uint64_t build_id_addr;
};
static_assert(sizeof(ProcmapQuery) == 104);
constexpr unsigned long kProcmapQuery = 0xC0686611;  // _IOWR(0x9f, 17, struct procmap_query)
constexpr uint64_t kVmaExecutable = 0x04;
// query_flags: only a mapping with these permissions; the one holding the address or else the next one.
constexpr uint64_t kQueryExecutable = 0x04;
constexpr uint64_t kQueryCoveringOrNext = 0x10;

}  // namespace

MappingQueries::MappingQueries() : fd_(::open("/proc/self/maps", O_RDONLY | O_CLOEXEC)) {}

MappingQueries::~MappingQueries() {
  if (fd_ >= 0) ::close(fd_);
}

MappingQuery MappingQueries::find(uintptr_t address, QueriedMapping& mapping) {
  if (fd_ < 0) return MappingQuery::kUnsupported;
  ProcmapQuery query{};
  query.size = sizeof query;
  query.query_addr = address;
  if (::ioctl(fd_, kProcmapQuery, &query) != 0)
    return errno == ENOENT ? MappingQuery::kNoMapping : MappingQuery::kUnsupported;
  mapping.start = uintptr_t(query.vma_start);
  mapping.end = uintptr_t(query.vma_end);
  mapping.executable = (query.vma_flags & kVmaExecutable) != 0;
  return MappingQuery::kFound;
}

MappingQuery MappingQueries::executable_mappings(std::vector<QueriedMapping>& mappings) {
  mappings.clear();
  if (fd_ < 0) return MappingQuery::kUnsupported;
  for (uint64_t address = 0;;) {
    ProcmapQuery query{};
    query.size = sizeof query;
    query.query_flags = kQueryExecutable | kQueryCoveringOrNext;
    query.query_addr = address;
    if (::ioctl(fd_, kProcmapQuery, &query) != 0) {
      if (errno == ENOENT) return MappingQuery::kFound;  // no executable mapping above `address`
      mappings.clear();
      return MappingQuery::kUnsupported;
    }
    mappings.push_back({uintptr_t(query.vma_start), uintptr_t(query.vma_end), true});
    address = query.vma_end;
  }
}

}  // namespace umbra
