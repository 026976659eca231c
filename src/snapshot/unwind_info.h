// Whether libunwind has real unwind information for the frame under a cursor. On x86-64, unw_get_proc_info
// succeeds even without any (it reports a one-byte range and no unwind info, so that _start-like frames do not
// fail), so success alone does not tell native code from JIT-compiled code. An IP outside every ELF object's code
// is answered from the code-range table without libunwind's lookup. Async-signal-safe.
#pragma once

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "snapshot/code_ranges.h"

namespace umbra {

inline bool has_unwind_info(unw_cursor_t& cursor, unw_word_t ip) {
  if (outside_elf_code(uintptr_t(ip))) return false;
  unw_proc_info_t proc;
  if (unw_get_proc_info(&cursor, &proc) != 0) return false;
  return !(proc.unwind_info == nullptr && proc.start_ip == ip && proc.end_ip == ip + 1);
}

}  // namespace umbra
