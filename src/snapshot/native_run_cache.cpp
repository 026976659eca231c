#include "snapshot/native_run_cache.h"

#include <utility>

namespace umbra {
namespace {

// Frame i's return address was read from sp[i] - 8: a slot of the thread's own stack, between the run's first SP and
// the stack's base. Other frames' memory, read on purpose: not an error for AddressSanitizer to report.
__attribute__((no_sanitize("address"))) uintptr_t return_address_below(uintptr_t sp) {
  return *reinterpret_cast<const volatile uintptr_t*>(sp - 8);
}

bool still_on_stack(const NativeRunCache::Entry& e, uintptr_t ip0, uintptr_t sp0, uintptr_t bp0) {
  if (!e.valid || e.ip0 != ip0 || e.sp0 != sp0 || e.bp0 != bp0) return false;
  for (uint32_t i = 1; i < e.count; ++i)
    if (return_address_below(e.sp[i]) != e.ip[i]) return false;
  return e.stop_sp == 0 || return_address_below(e.stop_sp) == e.stop_ip;
}

bool plausible_slots(const NativeRunCache::Entry& run) {
  constexpr uintptr_t kMaxStack = uintptr_t(1) << 30;
  auto plausible = [&](uintptr_t sp, uintptr_t previous) {
    return sp > previous && sp - run.sp0 < kMaxStack && sp % 8 == 0;
  };
  uintptr_t previous = run.sp[0];
  for (uint32_t i = 1; i < run.count; ++i) {
    if (!plausible(run.sp[i], previous)) return false;
    previous = run.sp[i];
  }
  return run.stop_sp == 0 || plausible(run.stop_sp, previous);
}

}  // namespace

const NativeRunCache::Entry* NativeRunCache::find(uintptr_t ip0, uintptr_t sp0, uintptr_t bp0) {
  for (int i = 0; i < kEntries; ++i) {
    const Entry& e = entries[kept[i]];
    if (!still_on_stack(e, ip0, sp0, bp0)) continue;
    ++hits;
    return &e;
  }
  ++misses;
  return nullptr;
}

NativeRunCache::Entry& NativeRunCache::begin(uintptr_t ip0, uintptr_t sp0, uintptr_t bp0) {
  Entry& run = entries[kept[kEntries]];
  run.valid = false;
  run.ip0 = ip0;
  run.sp0 = sp0;
  run.bp0 = bp0;
  run.count = 0;
  run.stop_ip = 0;
  run.stop_sp = 0;
  return run;
}

void NativeRunCache::clear() {
  for (Entry& e : entries) e.valid = false;
}

void NativeRunCache::keep(Entry& run) {
  if (&run != &entries[kept[kEntries]] || run.count == 0 || !plausible_slots(run)) return;
  run.valid = true;
  std::swap(kept[next_victim], kept[kEntries]);
  entries[kept[kEntries]].valid = false;  // the run it replaced
  next_victim = (next_victim + 1) % kEntries;
}

}  // namespace umbra
