// Native runs unwound from a register context as DoStackSnapshot passes it, and the cache of runs still on the stack.
#include "snapshot/stack_walk.h"

#include <gtest/gtest.h>
#include <ucontext.h>

#include <cstring>
#include <functional>
#include <vector>

#include "snapshot/native_symbols.h"

namespace umbra {
namespace {

// A linux-x64 PAL CONTEXT carrying this function's registers, as the runtime would pass it, unwound `times` times
// from the same frame, each time into a fresh sink (through `cache` when given); returns each time's frames.
__attribute__((noinline)) std::vector<std::vector<uintptr_t>> unwind_here_repeatedly(
    size_t capacity, int times, NativeRunCache* cache = nullptr, const std::function<void()>& between = {},
    bool* overflowed = nullptr) {
  ucontext_t uc;
  getcontext(&uc);
  uint8_t context[0x100] = {};
  auto put = [&](uint32_t offset, greg_t v) { std::memcpy(context + offset, &v, sizeof v); };
  put(0x90, uc.uc_mcontext.gregs[REG_RBX]);
  put(0x98, uc.uc_mcontext.gregs[REG_RSP]);
  put(0xA0, uc.uc_mcontext.gregs[REG_RBP]);
  put(0xD8, uc.uc_mcontext.gregs[REG_R12]);
  put(0xE0, uc.uc_mcontext.gregs[REG_R13]);
  put(0xE8, uc.uc_mcontext.gregs[REG_R14]);
  put(0xF0, uc.uc_mcontext.gregs[REG_R15]);
  put(0xF8, uc.uc_mcontext.gregs[REG_RIP]);
  std::vector<std::vector<uintptr_t>> runs;
  for (int i = 0; i < times; ++i) {
    if (between && i > 0) between();
    std::vector<SampleFrame> frames(capacity);
    FrameSink sink{frames.data(), capacity};
    sink.native_runs = cache;
    unwind_native_from_context(context, sizeof context, sink);
    if (overflowed) *overflowed = sink.overflowed;
    runs.emplace_back();
    for (size_t f = 0; f < sink.count; ++f) runs.back().push_back(frames[f].id);
  }
  return runs;
}

TEST(StackWalk, UnwindsFromARegisterContext) {
  std::vector<uintptr_t> ips = unwind_here_repeatedly(64, 1)[0];
  ASSERT_GT(ips.size(), 3u);
  NativeSymbols symbols;
  bool found_test = false;
  for (uintptr_t ip : ips)
    found_test |= symbols.lookup(ip).name.find("UnwindsFromARegisterContext") != std::string::npos ||
                  symbols.lookup(ip).module.find("umbra_unit_tests") != std::string::npos;
  EXPECT_TRUE(found_test);
}

TEST(StackWalk, ARunStillOnTheStackIsNotUnwoundAgain) {
  NativeRunCache cache;
  auto runs = unwind_here_repeatedly(64, 3, &cache);
  EXPECT_EQ(cache.misses, 1u);
  EXPECT_EQ(cache.hits, 2u);
  ASSERT_GT(runs[0].size(), 3u);
  EXPECT_EQ(runs[1], runs[0]);
  EXPECT_EQ(runs[2], runs[0]);
}

TEST(StackWalk, ARunWhoseReturnAddressChangedIsUnwoundAgain) {
  NativeRunCache cache;
  auto runs = unwind_here_repeatedly(64, 2, &cache, [&] {
    // As if the stack now held other callers: a recorded return address no longer matches its slot.
    for (auto& e : cache.entries)
      if (e.valid && e.count > 2) e.ip[2] ^= 1;
  });
  EXPECT_EQ(cache.hits, 0u);
  EXPECT_EQ(cache.misses, 2u);
  EXPECT_EQ(runs[1], runs[0]);  // the real frames, not the altered ones
}

// Calls `f` from `depth` frames further down the stack: another run below it, at another stack pointer.
__attribute__((noinline)) void at_depth(int depth, const std::function<void()>& f) {
  if (depth == 0) f();
  else at_depth(depth - 1, f);
  asm volatile("" ::: "memory");  // not a tail call
}

TEST(StackWalk, ARunNotKeptLeavesTheRunsKept) {
  NativeRunCache cache;
  auto runs = unwind_here_repeatedly(64, 2, &cache, [&] {
    at_depth(1, [&] { unwind_here_repeatedly(64, 1, &cache); });  // a second run, kept too
    at_depth(2, [&] { unwind_here_repeatedly(2, 1, &cache); });   // a third, cut short: not kept
  });
  EXPECT_EQ(cache.misses, 3u);
  EXPECT_EQ(cache.hits, 1u) << "the first run, still kept";
  EXPECT_EQ(runs[1], runs[0]);
}

TEST(StackWalk, AShortContextIsIgnoredAndAFullSinkSaysSo) {
  uint8_t context[0x80] = {};
  SampleFrame frames[2];
  FrameSink sink{frames, 2};
  unwind_native_from_context(context, sizeof context, sink);
  EXPECT_EQ(sink.count, 0u);
  bool overflowed = false;
  NativeRunCache cache;
  auto runs = unwind_here_repeatedly(2, 2, &cache, {}, &overflowed);
  EXPECT_EQ(runs[1].size(), 2u);
  EXPECT_TRUE(overflowed);
  EXPECT_EQ(cache.hits, 0u);  // a run cut short is not kept
}

}  // namespace
}  // namespace umbra
