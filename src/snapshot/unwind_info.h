// Whether libunwind has real unwind information for the frame under a cursor. On x86-64, unw_get_proc_info
// succeeds even without any (it reports a one-byte range and no unwind info, so that _start-like frames do not
// fail), so success alone does not tell native code from JIT-compiled code. An IP outside every ELF object's code
// is answered from the code-range table without libunwind's lookup. The answers for the others are remembered by
// the address libunwind looks up (a return address's call instruction, ip - 1; an interrupted frame's own ip),
// since the lookup (every loaded object searched, the frame's entry parsed, the signal mask set around it) is most of
// a capture's cost, and a thread's native frames below its managed ones are the same at every sample. They are
// forgotten once the sampler's refresh of the code ranges has seen an object loaded or unloaded (until then only
// addresses of an unloaded object, which no stack can return into, may be answered from before); a slot keeps 16
// bits of that count, so an answer could come back after 65,536 more loads and unloads if its slot was never
// taken since. Async-signal-safe: a lock-free table of atomics, never allocated.
#pragma once

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include <cstdint>

namespace umbra {

// `interrupted`: the cursor's frame is the one a signal interrupted (a cursor begun with UNW_INIT_SIGNAL_FRAME, before
// any step), whose ip is the next instruction to run rather than a return address.
bool has_unwind_info(unw_cursor_t& cursor, unw_word_t ip, bool interrupted);

// How many times has_unwind_info has asked libunwind so far (tests).
uint64_t unwind_info_lookups();

}  // namespace umbra
