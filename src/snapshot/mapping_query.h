// The mapping that holds one address, asked of the kernel directly (the PROCMAP_QUERY ioctl on /proc/self/maps,
// Linux 6.11 and later) instead of reading every line of /proc/self/maps. Reading the whole file costs 0.2-0.6 ms
// at a program's start-up (its mappings change as the runtime compiles code, and reading them holds the process's
// memory-map lock against the runtime's own mprotect and mmap calls); one query costs a few microseconds.
// Contract: the sampler thread (or any thread but a signal handler); no lock or log; find does not allocate.
#pragma once

#include <cstdint>
#include <vector>

namespace umbra {

struct QueriedMapping {
  uintptr_t start = 0;
  uintptr_t end = 0;  // exclusive
  bool executable = false;
};

enum class MappingQuery {
  kFound,        // `mapping` holds the address
  kNoMapping,    // no mapping holds it
  kUnsupported,  // the kernel cannot answer (before 6.11, or /proc not mounted): read /proc/self/maps instead
};

// Holds /proc/self/maps open for as long as it lives. The sampler makes one for each address it asks about and
// drops it at once: queries are rare, so this descriptor does not stay open while the program runs, where the
// program could see or close it.
class MappingQueries {
 public:
  MappingQueries();
  ~MappingQueries();
  MappingQueries(const MappingQueries&) = delete;
  MappingQueries& operator=(const MappingQueries&) = delete;

  MappingQuery find(uintptr_t address, QueriedMapping& mapping);
  // Every executable mapping, by address, in one query each: the kernel skips the others and names none, where
  // reading the file renders every mapping's path (0.7 ms for a web server's 868 mappings, against 0.09).
  // kFound, or kUnsupported with `mappings` cleared.
  MappingQuery executable_mappings(std::vector<QueriedMapping>& mappings);

 private:
  int fd_;
};

}  // namespace umbra
