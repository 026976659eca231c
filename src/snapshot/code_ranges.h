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

  // Async-signal-safe: a binary search over memory that never changes once published.
  bool contains(uintptr_t ip) const;
};

class CodeRanges {
 public:
  // Sampler thread, before suspending or signalling: rebuilds the table if objects were loaded or unloaded since
  // the last call. Allocates.
  void refresh();
  // Any thread, signal handlers included; nullptr before the first refresh.
  const CodeRangeTable* current() const { return current_.load(std::memory_order_acquire); }

 private:
  // Every table stays until the process ends: a handler that started late may still be reading an older one.
  std::vector<std::unique_ptr<CodeRangeTable>> tables_;
  std::atomic<const CodeRangeTable*> current_{nullptr};
  unsigned long long adds_ = 0;
  unsigned long long subs_ = 0;
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

}  // namespace umbra
