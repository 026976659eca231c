// Whether libunwind has real unwind information for the frame under a cursor. On x86-64, unw_get_proc_info
// succeeds even without any (it reports a one-byte range and no unwind info, so that _start-like frames do not
// fail), so success alone does not tell native code from JIT-compiled code. An IP outside every ELF object's code
// is answered from the code-range table without libunwind's lookup; the answers for the others are remembered per
// IP until an object is loaded or unloaded, since the lookup (every loaded object searched, the frame's entry parsed,
// the signal mask set around it) is most of a capture's cost, and a thread's native frames below its managed ones
// are the same at every sample. Async-signal-safe: a lock-free table of atomics, never allocated.
#pragma once

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include <cstdint>

namespace umbra {

bool has_unwind_info(unw_cursor_t& cursor, unw_word_t ip);

// How many times has_unwind_info has asked libunwind so far (tests).
uint64_t unwind_info_lookups();

}  // namespace umbra
