#include "snapshot/stack_walk.h"

#include "snapshot/unwind_info.h"

#include <ucontext.h>

#include <cstring>

namespace umbra {
namespace {

// Offsets into the linux-x64 PAL CONTEXT; only the prefix up to Rip is relied on.
constexpr uint32_t kRbx = 0x90, kRsp = 0x98, kRbp = 0xA0, kR12 = 0xD8, kR13 = 0xE0, kR14 = 0xE8, kR15 = 0xF0,
                   kRip = 0xF8, kContextPrefix = 0x100;

uint64_t read64(const uint8_t* context, uint32_t offset) {
  uint64_t v;
  std::memcpy(&v, context + offset, sizeof v);
  return v;
}

clr::HRESULT on_frame(clr::FunctionID function, clr::UINT_PTR ip, clr::COR_PRF_FRAME_INFO, clr::ULONG32 context_size,
                      clr::BYTE context[], void* client_data) {
  auto& sink = *static_cast<FrameSink*>(client_data);
  if (function != 0) {
    if (sink.first_managed_ip == 0) {
      sink.first_managed_ip = ip;
      sink.first_managed_function = function;
    }
    sink.push({function, false});
  } else if (context != nullptr) {
    unwind_native_from_context(context, context_size, sink);
  }
  return clr::S_OK;
}

}  // namespace

namespace {

uintptr_t stack_word(uintptr_t address) {
  uintptr_t v;
  std::memcpy(&v, reinterpret_cast<const void*>(address), sizeof v);
  return v;
}

// The cached run is still on the stack: same start, and each return address still where it was read from. The
// slots lie between the context's SP and the stack's base, memory of the live, suspended thread.
bool still_on_stack(const NativeRunCache::Entry& e, uintptr_t ip0, uintptr_t sp0, uintptr_t bp0) {
  if (!e.valid || e.ip0 != ip0 || e.sp0 != sp0 || e.bp0 != bp0) return false;
  for (uint32_t i = 1; i < e.count; ++i)
    if (stack_word(e.sp[i] - 8) != e.ip[i]) return false;
  return e.stop_sp == 0 || stack_word(e.stop_sp - 8) == e.stop_ip;
}

bool plausible_frame_sp(uintptr_t sp, uintptr_t previous_sp, uintptr_t sp0) {
  constexpr uintptr_t kMaxStack = uintptr_t(1) << 30;
  return sp > previous_sp && sp - sp0 < kMaxStack && sp % 8 == 0;
}

}  // namespace

void unwind_native_from_context(const uint8_t* context, uint32_t context_size, FrameSink& sink) {
  if (context_size < kContextPrefix) return;
  uintptr_t ip0 = read64(context, kRip), sp0 = read64(context, kRsp), bp0 = read64(context, kRbp);
  NativeRunCache* cache = sink.native_runs;
  if (cache != nullptr) {
    for (const auto& e : cache->entries) {
      if (!still_on_stack(e, ip0, sp0, bp0)) continue;
      ++cache->hits;
      for (uint32_t i = 0; i < e.count; ++i)
        if (!sink.push({e.ip[i], true})) return;
      return;
    }
    ++cache->misses;
  }
  ucontext_t uc;
  std::memset(&uc, 0, sizeof uc);
  auto& gregs = uc.uc_mcontext.gregs;
  gregs[REG_RBX] = greg_t(read64(context, kRbx));
  gregs[REG_RSP] = greg_t(sp0);
  gregs[REG_RBP] = greg_t(bp0);
  gregs[REG_R12] = greg_t(read64(context, kR12));
  gregs[REG_R13] = greg_t(read64(context, kR13));
  gregs[REG_R14] = greg_t(read64(context, kR14));
  gregs[REG_R15] = greg_t(read64(context, kR15));
  gregs[REG_RIP] = greg_t(ip0);
  unw_cursor_t cursor;
  if (unw_init_local(&cursor, reinterpret_cast<unw_context_t*>(&uc)) != 0) return;
  // Recorded into the victim entry, which becomes valid only if the run ends cleanly and fits.
  NativeRunCache::Entry* record = cache ? &cache->entries[cache->next_victim] : nullptr;
  if (record) {
    record->valid = false;
    record->count = 0;
  }
  bool clean_end = false;
  uintptr_t stop_ip = 0, stop_sp = 0;
  for (int guard = 0; guard < 256; ++guard) {
    unw_word_t ip = 0, sp = 0;
    if (unw_get_reg(&cursor, UNW_REG_IP, &ip) != 0 || unw_get_reg(&cursor, UNW_REG_SP, &sp) != 0) break;
    if (ip == 0) {
      clean_end = true;
      break;
    }
    if (!has_unwind_info(cursor, ip)) {  // JIT-compiled code: the managed frames resume
      clean_end = true;
      stop_ip = ip;
      stop_sp = sp;
      break;
    }
    if (!sink.push({uintptr_t(ip), true})) break;
    if (record) {
      bool fits = record->count < NativeRunCache::kMaxFrames &&
                  (record->count == 0 || plausible_frame_sp(sp, record->sp[record->count - 1], sp0));
      if (!fits) record = nullptr;
      else {
        record->ip[record->count] = ip;
        record->sp[record->count] = sp;
        ++record->count;
      }
    }
    if (unw_step(&cursor) <= 0) {
      clean_end = true;
      break;
    }
  }
  if (record && clean_end && record->count > 0 && (stop_sp == 0 || plausible_frame_sp(stop_sp, record->sp[record->count - 1], sp0))) {
    record->ip0 = ip0;
    record->sp0 = sp0;
    record->bp0 = bp0;
    record->stop_ip = stop_ip;
    record->stop_sp = stop_sp;
    record->valid = true;
    cache->next_victim = (cache->next_victim + 1) % NativeRunCache::kEntries;
  }
}

clr::HRESULT walk_thread(clr::ICorProfilerInfo10& info, clr::ThreadID thread, FrameSink& sink) {
  return info.DoStackSnapshot(thread, &on_frame, clr::COR_PRF_SNAPSHOT_REGISTER_CONTEXT, &sink, nullptr, 0);
}

}  // namespace umbra
