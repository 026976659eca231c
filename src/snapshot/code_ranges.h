// The address ranges of the ELF code loaded in this process (executables and shared libraries), as immutable
// tables a signal handler may read. An IP outside all of them is JIT-compiled code or a runtime stub: the native
// capture stops there without asking libunwind, whose lookup walks every loaded object (most of a capture's cost
// when a thread is interrupted in managed code).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace umbra {

struct CodeRange {
  uintptr_t start;
  uintptr_t end;  // exclusive
};

struct CodeRangeTable {
  std::vector<CodeRange> ranges;  // sorted by start, disjoint
  uint32_t generation = 0;        // of the ELF-code tables: one more at each load or unload seen

  // Async-signal-safe: a binary search over memory that never changes once published. The range holding `ip`, or
  // nullptr.
  const CodeRange* find(uintptr_t ip) const;
  bool contains(uintptr_t ip) const { return find(ip) != nullptr; }
};

class CodeRanges {
 public:
  // kMapsFile: every mapping read from /proc/self/maps, as on a kernel that cannot be asked (before Linux 6.11).
  enum class MappingSource { kKernelQueries, kMapsFile };
  explicit CodeRanges(MappingSource source = MappingSource::kKernelQueries)
      : queries_unsupported_(source == MappingSource::kMapsFile) {}

  // Sampler thread, before suspending or signalling: rebuilds the table if objects were loaded or unloaded since
  // the last call, and the table of executable mappings every so often (JIT code heaps grow). Allocates.
  void refresh();
  // Any thread, signal handlers included; nullptr before the first refresh.
  const CodeRangeTable* current() const { return current_.load(std::memory_order_acquire); }
  // Every executable mapping of the process (asked of the kernel, else read from /proc/self/maps: ELF code,
  // JIT-compiled code, precompiled code, stubs); nullptr before the first refresh.
  const CodeRangeTable* executable() const { return executable_.load(std::memory_order_acquire); }
  // Sampler thread: reads the executable mappings again unless they were read within `min_age_ns` (an address
  // outside them may be code mapped since). Allocates.
  void refresh_executable(uint64_t min_age_ns = 1'000'000'000);
  // Sampler thread: whether `ip` lay in a mapping without any access when /proc/self/maps was last read (only
  // read where the kernel cannot be asked). The runtime reserves its code heaps that way and makes pages executable
  // as it fills them: such an address is likely code made since.
  bool in_reservation(uintptr_t ip) const { return reserved_ != nullptr && reserved_->contains(ip); }
  // Sampler thread: asks the kernel for the mapping that holds `ip` alone (mapping_query.h) and, when it is
  // executable, publishes the table of executable mappings with it. kUnknown where the kernel cannot answer: the
  // caller reads all the mappings instead (refresh_executable). Allocates.
  enum class Learned { kExecutable, kNotExecutable, kUnknown };
  Learned learn_mapping_of(uintptr_t ip);

 private:

  // Every table stays until the process ends: a handler that started late may still be reading an older one.
  // A table of executable mappings is published only when the mappings changed.
  std::vector<std::unique_ptr<CodeRangeTable>> tables_;
  std::atomic<const CodeRangeTable*> current_{nullptr};
  std::atomic<const CodeRangeTable*> executable_{nullptr};
  std::unique_ptr<CodeRangeTable> reserved_;  // sampler thread only
  uint64_t executable_read_ns_ = 0;
  bool queries_unsupported_ = false;
  unsigned long long adds_ = 0;
  unsigned long long subs_ = 0;
  uint32_t generations_ = 0;
};

// The process's table, shared by the native-capture handler and the walk under suspension. Never freed: a handler
// may run late, even during exit.
CodeRanges& process_code_ranges();

// Async-signal-safe. True when `ip` lies outside every ELF object's code (JIT-compiled code or a stub, where
// libunwind has nothing to read); false when it is inside one, or before the table was first built.
inline bool outside_elf_code(uintptr_t ip) {
  const CodeRangeTable* code = process_code_ranges().current();
  return code != nullptr && !code->contains(ip);
}

// Async-signal-safe. True when `ip` lies in an executable mapping outside every ELF object: JIT-compiled or
// precompiled managed code, or a stub. False for data, ELF code, or before the tables were first built.
inline bool in_managed_code(uintptr_t ip) {
  const CodeRangeTable* executable = process_code_ranges().executable();
  return executable != nullptr && executable->contains(ip) && outside_elf_code(ip);
}
// The executable mapping holding `ip` ([start, end)), or the code of an ELF object loaded since the mappings were
// read; nullptr if neither.
const CodeRange* executable_range_of(uintptr_t ip);

}  // namespace umbra
