#include "snapshot/unwind_info.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <filesystem>

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
  // A library loaded since (a copy under a name no other test loads): the code at an address may have changed.
  std::filesystem::path copy = std::filesystem::temp_directory_path() /
                               ("umbra_unwind_info_probe_" + std::to_string(getpid()) + ".so");
  std::filesystem::copy_file(UMBRA_TEST_SYMTAB_PROBE, copy, std::filesystem::copy_options::overwrite_existing);
  void* loaded = dlopen(copy.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(loaded, nullptr) << dlerror();
  process_code_ranges().refresh();
  EXPECT_EQ(lookups_asking_of_own_frame(2), 1u);
  dlclose(loaded);
  std::filesystem::remove(copy);
}

}  // namespace
}  // namespace umbra
