#include "snapshot/unwind_info.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include "loaded_probe_copy.h"
#include "snapshot/code_ranges.h"

namespace umbra {
namespace {

// Asks `times` whether this function's own frame has unwind information; returns how many of those asks went to
// libunwind.
__attribute__((noinline)) uint64_t lookups_asking_of_own_frame(int times) {
  unw_context_t context;
  unw_getcontext(&context);
  unw_cursor_t cursor;
  EXPECT_EQ(unw_init_local(&cursor, &context), 0);
  unw_word_t ip = 0;
  unw_get_reg(&cursor, UNW_REG_IP, &ip);
  const uint64_t before = unwind_info_lookups();
  for (int i = 0; i < times; ++i) EXPECT_TRUE(has_unwind_info(cursor, ip, /*interrupted=*/false)) << "ask " << i;
  return unwind_info_lookups() - before;
}

TEST(UnwindInfo, LibunwindIsAskedOncePerIpUntilAnObjectIsLoaded) {
  process_code_ranges().refresh();
  EXPECT_EQ(lookups_asking_of_own_frame(3), 1u);
  // A library loaded since: the code at an address may have changed.
  LoadedProbeCopy loaded("unwind_info_probe");
  ASSERT_NE(loaded.handle, nullptr) << dlerror();
  process_code_ranges().refresh();
  EXPECT_EQ(lookups_asking_of_own_frame(2), 1u);
}

}  // namespace
}  // namespace umbra
