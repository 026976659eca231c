// The mapping that holds one address, asked of the kernel directly (the PROCMAP_QUERY ioctl on /proc/self/maps,
// Linux 6.11 and later) instead of reading every line of /proc/self/maps. Reading the whole file costs 0.2-0.6 ms
// at a program's start-up (its mappings change as the runtime compiles code, and reading them holds the process's
// memory-map lock against the runtime's own mprotect and mmap calls); one query costs a few microseconds.
// Contract: the sampler thread (or any thread but a signal handler); no allocation, lock or log.
#pragma once

#include <cstdint>
#include <optional>

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

// Opens /proc/self/maps for the queries of one batch (a tick's) and closes it: the descriptor is never held while
// the program runs, where it could see it or close it.
class MappingQueries {
 public:
  MappingQueries();
  ~MappingQueries();
  MappingQueries(const MappingQueries&) = delete;
  MappingQueries& operator=(const MappingQueries&) = delete;

  MappingQuery find(uintptr_t address, QueriedMapping& mapping);

 private:
  int fd_;
};

}  // namespace umbra
