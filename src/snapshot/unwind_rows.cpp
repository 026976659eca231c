#include "snapshot/unwind_rows.h"

#include <atomic>
#include <cstddef>
#include <cstring>

#include "snapshot/code_address_key.h"
#include "snapshot/code_ranges.h"

namespace umbra {
namespace {

namespace key = code_address_key;

// A slot holds the looked-up address's key (snapshot/code_address_key.h), with a bit set while its row is being
// written; 0 is empty. A slot from an older generation is free to take.
constexpr uint64_t kWriting = uint64_t(1) << 63;
constexpr int kSlotBits = 11;
constexpr size_t kSlots = size_t(1) << kSlotBits;
constexpr int kProbes = 8;
// libunwind 1.6's x86-64 row is 176 bytes (a rule and a value for 19 columns, the return address's column); a
// larger one is not remembered.
constexpr size_t kRowWords = 24;

struct Row {
  uint64_t words[kRowWords];
};

// Keys and rows apart, rows handed out in order as slots are first taken: a short program touches a few pages of
// rows, not one per slot it hashes to (each first touch is a page fault in the handler).
std::atomic<uint64_t> g_keys[kSlots];
std::atomic<uint32_t> g_row_of_slot[kSlots];  // 1 + the row's index; 0 until the slot is first taken
std::atomic<uint64_t> g_rows[kSlots][kRowWords];
std::atomic<uint32_t> g_rows_handed_out{0};
std::atomic<uint64_t> g_steps_by_row{0};
std::atomic<uint64_t> g_rows_learned{0};

bool find_row(uint64_t wanted, Row& row) {
  const size_t first = key::first_slot(wanted, kSlotBits);
  for (int i = 0; i < kProbes; ++i) {
    const size_t slot = (first + size_t(i)) & (kSlots - 1);
    const uint64_t held = g_keys[slot].load(std::memory_order_acquire);
    if (held == 0) return false;
    if (held != wanted) continue;
    const std::atomic<uint64_t>* words = g_rows[g_row_of_slot[slot].load(std::memory_order_relaxed) - 1];
    for (size_t w = 0; w < kRowWords; ++w) row.words[w] = words[w].load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    return g_keys[slot].load(std::memory_order_relaxed) == wanted;  // not taken for another row while copied
  }
  return false;
}

void remember_row(uint64_t wanted, uint64_t generation, const Row& row) {
  const size_t first = key::first_slot(wanted, kSlotBits);
  for (int i = 0; i < kProbes; ++i) {
    const size_t slot = (first + size_t(i)) & (kSlots - 1);
    uint64_t held = g_keys[slot].load(std::memory_order_relaxed);
    if (held == wanted) return;
    const bool free = held == 0 || (!(held & kWriting) && key::generation_of(held) != generation);
    if (!free || !g_keys[slot].compare_exchange_strong(held, wanted | kWriting, std::memory_order_relaxed)) continue;
    uint32_t row_of_slot = g_row_of_slot[slot].load(std::memory_order_relaxed);
    if (row_of_slot == 0) {  // at most one row per slot: never more than kSlots handed out
      row_of_slot = g_rows_handed_out.fetch_add(1, std::memory_order_relaxed) + 1;
      g_row_of_slot[slot].store(row_of_slot, std::memory_order_relaxed);
    }
    std::atomic_thread_fence(std::memory_order_release);
    std::atomic<uint64_t>* words = g_rows[row_of_slot - 1];
    for (size_t w = 0; w < kRowWords; ++w) words[w].store(row.words[w], std::memory_order_relaxed);
    g_keys[slot].store(wanted, std::memory_order_release);
    g_rows_learned.fetch_add(1, std::memory_order_relaxed);
    return;
  }
}

struct WantedRow {
  unw_word_t address;
  Row row;
  bool found;
};

constexpr int kRowFound = -1000;  // stops libunwind's iteration once the row is copied

int take_row_at(void* token, void* rules, size_t size, unw_word_t start, unw_word_t end) {
  auto* wanted = static_cast<WantedRow*>(token);
  if (wanted->address < start || wanted->address >= end) return 0;
  if (size > sizeof wanted->row) return kRowFound;  // not found: too large to keep
  std::memset(&wanted->row, 0, sizeof wanted->row);
  std::memcpy(&wanted->row, rules, size);
  wanted->found = true;
  return kRowFound;
}

// unw_step's end of the stack after a frame it could unwind: the caller's RBP is not saved anywhere.
int applied(unw_cursor_t& cursor, Row& row) {
  const int step = unw_apply_reg_state(&cursor, &row);
  if (step <= 0) return step;
  unw_save_loc_t rbp{};
  if (unw_get_save_loc(&cursor, UNW_X86_64_RBP, &rbp) == 0 && rbp.type == UNW_SLT_NONE) return 0;
  return step;
}

}  // namespace

namespace {

// Where a frame's row came from; kNone: it has none to take (the caller steps with unw_step).
enum class RowSource { kNone, kRemembered, kLearned, kTrampoline };

// The row of the frame at `ip`, looked up by its return address: remembered, or learned now and kept (a signal
// trampoline's is learned but not kept: the frame after it is looked up by its own ip).
RowSource row_of(unw_cursor_t& cursor, unw_word_t ip, const CodeRangeTable* code, Row& row) {
  const uint64_t looked_up = uint64_t(ip) - 1;
  if (code == nullptr || ip == 0 || !key::fits(looked_up)) return RowSource::kNone;
  const uint64_t generation = code->generation & key::kGenerationMask;
  const uint64_t wanted_key = key::of(looked_up, generation);
  if (find_row(wanted_key, row)) return RowSource::kRemembered;
  // The rows of the frame's whole entry, the one holding the address kept. The iteration also sets what the cursor
  // looks up next: its own ip after a signal trampoline.
  WantedRow wanted{unw_word_t(looked_up), {}, false};
  unw_reg_states_iterate(&cursor, take_row_at, &wanted);
  if (!wanted.found) return RowSource::kNone;
  row = wanted.row;
  if (unw_is_signal_frame(&cursor) > 0) return RowSource::kTrampoline;
  remember_row(wanted_key, generation, row);
  return RowSource::kLearned;
}

}  // namespace

int step_by_remembered_row(unw_cursor_t& cursor, unw_word_t ip, bool& exact_lookup) {
  Row row;
  const RowSource source =
      exact_lookup ? RowSource::kNone : row_of(cursor, ip, process_code_ranges().current(), row);
  if (source == RowSource::kNone) {
    const int step = unw_step(&cursor);
    exact_lookup = unw_is_signal_frame(&cursor) > 0;  // the frame stepped from was a trampoline
    return step;
  }
  if (source == RowSource::kRemembered) g_steps_by_row.fetch_add(1, std::memory_order_relaxed);
  if (source == RowSource::kTrampoline) exact_lookup = true;  // the frame after it needs unw_step
  return applied(cursor, row);
}

bool remember_row_of(unw_cursor_t& cursor, unw_word_t ip, bool exact_lookup) {
  const CodeRangeTable* code = process_code_ranges().current();
  if (exact_lookup || code == nullptr || !code->contains(uintptr_t(ip))) return false;
  Row row;
  const RowSource source = row_of(cursor, ip, code, row);
  return source == RowSource::kRemembered || source == RowSource::kLearned;
}

uint64_t steps_by_remembered_row() { return g_steps_by_row.load(std::memory_order_relaxed); }
uint64_t unwind_rows_learned() { return g_rows_learned.load(std::memory_order_relaxed); }

}  // namespace umbra
