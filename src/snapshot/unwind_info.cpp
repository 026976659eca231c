#include "snapshot/unwind_info.h"

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "snapshot/code_address_key.h"
#include "snapshot/code_ranges.h"

namespace umbra {
namespace {

namespace key = code_address_key;

// A slot holds a key (snapshot/code_address_key.h) and the answer; 0 is empty. A slot from an older generation is
// free to take.
constexpr uint64_t kAnswerBit = uint64_t(1) << 63;
constexpr int kSlotBits = 12;
constexpr size_t kSlots = size_t(1) << kSlotBits;
constexpr int kProbes = 8;

std::atomic<uint64_t> g_answers[kSlots];
std::atomic<uint64_t> g_lookups{0};

bool ask_libunwind(unw_cursor_t& cursor, unw_word_t ip) {
  g_lookups.fetch_add(1, std::memory_order_relaxed);
  unw_proc_info_t proc;
  if (unw_get_proc_info(&cursor, &proc) != 0) return false;
  return !(proc.unwind_info == nullptr && proc.start_ip == ip && proc.end_ip == ip + 1);
}

}  // namespace

uint64_t unwind_info_lookups() { return g_lookups.load(std::memory_order_relaxed); }

bool has_unwind_info(unw_cursor_t& cursor, unw_word_t ip, bool interrupted) {
  const CodeRangeTable* code = process_code_ranges().current();
  if (code != nullptr && !code->contains(uintptr_t(ip))) return false;
  // libunwind looks up the call instruction before a return address, and an interrupted frame's own instruction.
  const uint64_t looked_up = interrupted || ip == 0 ? uint64_t(ip) : uint64_t(ip) - 1;
  if (code == nullptr || !key::fits(looked_up)) return ask_libunwind(cursor, ip);
  const uint64_t generation = code->generation & key::kGenerationMask;
  const uint64_t wanted = key::of(looked_up, generation);
  const size_t first = key::first_slot(looked_up, kSlotBits);
  for (int i = 0; i < kProbes; ++i) {
    uint64_t held = g_answers[(first + size_t(i)) & (kSlots - 1)].load(std::memory_order_relaxed);
    if (held == 0) break;
    if ((held & ~kAnswerBit) == wanted) return (held & kAnswerBit) != 0;
  }
  const bool answer = ask_libunwind(cursor, ip);
  for (int i = 0; i < kProbes; ++i) {
    std::atomic<uint64_t>& slot = g_answers[(first + size_t(i)) & (kSlots - 1)];
    uint64_t held = slot.load(std::memory_order_relaxed);
    const bool free = held == 0 || key::generation_of(held) != generation;
    if (free && slot.compare_exchange_strong(held, wanted | (answer ? kAnswerBit : 0), std::memory_order_relaxed)) break;
  }
  return answer;
}

}  // namespace umbra
