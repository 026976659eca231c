#include "snapshot/stack_walk.h"

#include "snapshot/unwind_info.h"
#include "snapshot/unwind_rows.h"

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

void unwind_native_from_context(const uint8_t* context, uint32_t context_size, FrameSink& sink) {
  if (context_size < kContextPrefix) return;
  uintptr_t ip0 = read64(context, kRip), sp0 = read64(context, kRsp), bp0 = read64(context, kRbp);
  NativeRunCache* cache = sink.native_runs;
  if (cache != nullptr) {
    if (const NativeRunCache::Entry* e = cache->find(ip0, sp0, bp0)) {
      for (uint32_t i = 0; i < e->count; ++i)
        if (!sink.push({e->ip[i], true})) return;
      return;
    }
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
  // The run as the cache would keep it: only if it ends cleanly and fits.
  NativeRunCache::Entry unkept;
  NativeRunCache::Entry& run = cache != nullptr ? cache->begin(ip0, sp0, bp0) : unkept;
  bool fits = true, clean_end = false;
  bool exact_lookup = false;  // a return address: its call instruction is looked up
  for (int guard = 0; guard < 256; ++guard) {
    unw_word_t ip = 0, sp = 0;
    if (unw_get_reg(&cursor, UNW_REG_IP, &ip) != 0 || unw_get_reg(&cursor, UNW_REG_SP, &sp) != 0) break;
    // The stack ended, or JIT-compiled code: managed frames resume.
    const bool has_row = ip != 0 && remember_row_of(cursor, ip, exact_lookup);
    if (ip == 0 || (!has_row && !has_unwind_info(cursor, ip, /*interrupted=*/false))) {
      if (ip != 0) {
        run.stop_ip = ip;
        run.stop_sp = sp;
      }
      clean_end = true;
      break;
    }
    if (!sink.push({uintptr_t(ip), true})) break;
    if (run.count < NativeRunCache::kMaxFrames) {
      run.ip[run.count] = ip;
      run.sp[run.count++] = sp;
    } else {
      fits = false;
    }
    // The world is stopped meanwhile: the steps libunwind's own cache would take with system calls use the rows.
    if (step_by_remembered_row(cursor, ip, exact_lookup) <= 0) {
      clean_end = true;
      break;
    }
  }
  if (cache != nullptr && clean_end && fits) cache->keep(run);
}

clr::HRESULT walk_thread(clr::ICorProfilerInfo10& info, clr::ThreadID thread, FrameSink& sink) {
  return info.DoStackSnapshot(thread, &on_frame, clr::COR_PRF_SNAPSHOT_REGISTER_CONTEXT, &sink, nullptr, 0);
}

}  // namespace umbra
