// The key of the lock-free tables the signal handler fills (snapshot/unwind_info.cpp, snapshot/unwind_rows.cpp): a
// code address (user space on x86-64: 47 bits) and the low 16 bits of the generation of the ELF-code table it was
// learned under, so that what was learned of an address is forgotten once an object is loaded or unloaded.
#pragma once

#include <cstddef>
#include <cstdint>

namespace umbra::code_address_key {

constexpr int kAddressBits = 47;
constexpr uint64_t kAddressMask = (uint64_t(1) << kAddressBits) - 1;
constexpr uint64_t kGenerationMask = 0xFFFF;

inline bool fits(uint64_t address) { return (address & ~kAddressMask) == 0; }
inline uint64_t of(uint64_t address, uint64_t generation) {
  return address | ((generation & kGenerationMask) << kAddressBits);
}
inline uint64_t generation_of(uint64_t key) { return (key >> kAddressBits) & kGenerationMask; }

// The first slot to probe in a table of 2^slot_bits slots.
inline size_t first_slot(uint64_t value, int slot_bits) {
  return size_t((value * 0x9E3779B97F4A7C15ull) >> (64 - slot_bits));
}

}  // namespace umbra::code_address_key
