// A step of a libunwind cursor without libunwind's system calls, for the unwinds made in signal handlers and while
// the runtime is suspended. Debian's libunwind is built without its per-thread cache and blocks every signal around
// each of its locks: a step sets the signal mask twice (its cache of unwind rules), and a frame not in that cache
// twice more (the lookup of its entry) and twice again (allocating and freeing the entry's parse). Here a frame's
// unwind row (the rules that give its caller's registers, as unw_reg_states_iterate reports them) is remembered by
// the address its cursor looks up, and a later step from that address applies the row (unw_apply_reg_state), then
// ends the stack where unw_step would (no saved RBP): no system call.
//
// Only frames looked up by their return address (ip - 1) take this path. A cursor's first frame after
// UNW_INIT_SIGNAL_FRAME, and the frame after a signal trampoline, are looked up by their own ip, which only
// unw_step knows to do: `exact_lookup` says so, and is updated for the next frame. Rows are forgotten as
// has_unwind_info's answers are (snapshot/unwind_info.h), with the generation of the ELF-code table.
//
// Async-signal-safe: a lock-free table of atomics in static storage (rows copied under a sequence check), never
// allocated. Hot path: no blocking, allocation, logging or throwing.
#pragma once

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include <cstdint>

namespace umbra {

// Steps `cursor`, whose frame's ip is `ip`: as unw_step, > 0 at the caller, 0 at the stack's end, < 0 an error.
int step_by_remembered_row(unw_cursor_t& cursor, unw_word_t ip, bool& exact_lookup);

// Whether the frame at `ip`, looked up by its return address (not `exact_lookup`), has a row, learning it now if
// none is remembered: such a frame has unwind information, so the caller need not ask libunwind that separately
// (has_unwind_info), a second lookup of a frame the step is about to learn. False for a frame without a row, one
// outside ELF code, a trampoline, or an exact lookup: has_unwind_info decides those.
bool remember_row_of(unw_cursor_t& cursor, unw_word_t ip, bool exact_lookup);

// Steps taken by a remembered row, and rows learned, so far (tests).
uint64_t steps_by_remembered_row();
uint64_t unwind_rows_learned();

}  // namespace umbra
