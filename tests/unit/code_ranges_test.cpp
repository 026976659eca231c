// The code-range table tells code loaded from ELF files (this binary, libc) from code in anonymous memory, as
// JIT-compiled code is.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

#include "snapshot/code_ranges.h"
#include "snapshot/mapping_query.h"

namespace umbra {
namespace {

__attribute__((noinline)) int ElfCodeMarker() { return 1; }

TEST(CodeRanges, ElfCodeIsInsideAndAnonymousMemoryOutside) {
  CodeRanges ranges;
  EXPECT_EQ(ranges.current(), nullptr);
  ranges.refresh();
  const CodeRangeTable* table = ranges.current();
  ASSERT_NE(table, nullptr);
  EXPECT_TRUE(table->contains(reinterpret_cast<uintptr_t>(&ElfCodeMarker)));  // this binary
  EXPECT_TRUE(table->contains(reinterpret_cast<uintptr_t>(&std::fputs)));               // libc
  void* page = mmap(nullptr, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(page, MAP_FAILED);
  EXPECT_FALSE(table->contains(reinterpret_cast<uintptr_t>(page)));
  EXPECT_FALSE(table->contains(0));
  munmap(page, 4096);
  // Nothing loaded or unloaded since: the same table stays published.
  ranges.refresh();
  EXPECT_EQ(ranges.current(), table);
}

// Executable memory mapped after the last reading (a JIT code heap growing) is found once the mappings are read
// again, whether the kernel is asked or /proc/self/maps read; data is never in the table.
TEST(CodeRanges, ExecutableMappingsIncludeMemoryMappedSince) {
  for (auto source : {CodeRanges::MappingSource::kKernelQueries, CodeRanges::MappingSource::kMapsFile}) {
    SCOPED_TRACE(source == CodeRanges::MappingSource::kMapsFile ? "maps file" : "kernel queries");
    CodeRanges ranges(source);
    ranges.refresh();
    ASSERT_NE(ranges.executable(), nullptr);
    EXPECT_TRUE(ranges.executable()->contains(reinterpret_cast<uintptr_t>(&ElfCodeMarker)));
    EXPECT_TRUE(ranges.executable()->contains(reinterpret_cast<uintptr_t>(&std::fputs)));
    static int data = 0;
    EXPECT_FALSE(ranges.executable()->contains(reinterpret_cast<uintptr_t>(&data)));
    void* page = mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(page, MAP_FAILED);
    EXPECT_FALSE(ranges.executable()->contains(reinterpret_cast<uintptr_t>(page)));
    ranges.refresh_executable(0);
    EXPECT_TRUE(ranges.executable()->contains(reinterpret_cast<uintptr_t>(page)));
    const CodeRangeTable* with_page = ranges.executable();
    ranges.refresh_executable(0);  // nothing changed: the same table stays published
    EXPECT_EQ(ranges.executable(), with_page);
    munmap(page, 4096);
  }
}

// Asking the kernel for the executable mappings gives what /proc/self/maps lists as executable, and nothing else.
TEST(MappingQueries, ListTheExecutableMappingsOfTheMapsFile) {
  std::vector<QueriedMapping> queried;
  if (MappingQueries().executable_mappings(queried) == MappingQuery::kUnsupported)
    GTEST_SKIP() << "this kernel has no PROCMAP_QUERY";
  std::vector<std::pair<uintptr_t, uintptr_t>> listed;
  FILE* maps = std::fopen("/proc/self/maps", "re");
  ASSERT_NE(maps, nullptr);
  char line[512];
  while (std::fgets(line, sizeof line, maps)) {
    unsigned long start = 0, end = 0;
    char perms[5] = {};
    if (std::strstr(line, "[vsyscall]")) continue;  // the kernel's gate page, no mapping of the process
    if (std::sscanf(line, "%lx-%lx %4s", &start, &end, perms) == 3 && perms[2] == 'x') listed.push_back({start, end});
  }
  std::fclose(maps);
  std::vector<std::pair<uintptr_t, uintptr_t>> asked;
  for (const QueriedMapping& m : queried) {
    EXPECT_TRUE(m.executable);
    asked.push_back({m.start, m.end});
  }
  EXPECT_GE(asked.size(), 2u);  // this binary and libc at least
  EXPECT_EQ(asked, listed);
}

// The runtime reserves its code heaps without access and makes pages executable as it fills them: where
// /proc/self/maps is read, an address in such a reservation is known as one, until the page becomes executable code.
TEST(CodeRanges, AReservationIsKnownUntilItsPagesBecomeCode) {
  CodeRanges ranges(CodeRanges::MappingSource::kMapsFile);  // where the kernel is asked, nothing needs them
  ranges.refresh();
  void* reserved = mmap(nullptr, 2 * 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(reserved, MAP_FAILED);
  const uintptr_t first = reinterpret_cast<uintptr_t>(reserved), second = first + 4096;
  EXPECT_FALSE(ranges.in_reservation(first));  // not read since it was made
  ranges.refresh_executable(0);
  EXPECT_TRUE(ranges.in_reservation(first));
  EXPECT_TRUE(ranges.in_reservation(second));
  EXPECT_FALSE(ranges.executable()->contains(first));
  static int data = 0;
  EXPECT_FALSE(ranges.in_reservation(reinterpret_cast<uintptr_t>(&data)));
  EXPECT_FALSE(ranges.in_reservation(reinterpret_cast<uintptr_t>(&ElfCodeMarker)));
  ASSERT_EQ(mprotect(reserved, 4096, PROT_READ | PROT_EXEC), 0);
  ranges.refresh_executable(0);
  EXPECT_TRUE(ranges.executable()->contains(first));
  EXPECT_FALSE(ranges.in_reservation(first));
  EXPECT_TRUE(ranges.in_reservation(second));
  munmap(reserved, 2 * 4096);
}

// The kernel tells of the one mapping that holds an address (Linux 6.11 and later; older kernels say so, and the
// sampler reads every mapping instead).
TEST(MappingQueries, TellTheMappingThatHoldsAnAddress) {
  MappingQueries queries;
  QueriedMapping code;
  MappingQuery found = queries.find(reinterpret_cast<uintptr_t>(&ElfCodeMarker), code);
  if (found == MappingQuery::kUnsupported) GTEST_SKIP() << "this kernel has no PROCMAP_QUERY";
  ASSERT_EQ(found, MappingQuery::kFound);
  EXPECT_TRUE(code.executable);
  EXPECT_LE(code.start, reinterpret_cast<uintptr_t>(&ElfCodeMarker));
  EXPECT_GT(code.end, reinterpret_cast<uintptr_t>(&ElfCodeMarker));
  static int data = 0;
  QueriedMapping holding_data;
  ASSERT_EQ(queries.find(reinterpret_cast<uintptr_t>(&data), holding_data), MappingQuery::kFound);
  EXPECT_FALSE(holding_data.executable);
  QueriedMapping none;
  EXPECT_EQ(queries.find(16, none), MappingQuery::kNoMapping);
}

// Code mapped since the mappings were read (a code heap the runtime just made executable) is learned from the
// kernel alone: the table gains that mapping and keeps the others.
TEST(CodeRanges, LearnsAMappingOfCodeMadeSince) {
  CodeRanges ranges;
  ranges.refresh();
  QueriedMapping probe;
  if (MappingQueries().find(reinterpret_cast<uintptr_t>(&ElfCodeMarker), probe) == MappingQuery::kUnsupported)
    GTEST_SKIP() << "this kernel has no PROCMAP_QUERY";
  void* reserved = mmap(nullptr, 3 * 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(reserved, MAP_FAILED);
  const uintptr_t first = reinterpret_cast<uintptr_t>(reserved);
  const size_t before = ranges.executable()->ranges.size();
  EXPECT_EQ(ranges.learn_mapping_of(first), CodeRanges::Learned::kNotExecutable);
  ASSERT_EQ(mprotect(reserved, 4096, PROT_READ | PROT_EXEC), 0);
  EXPECT_FALSE(ranges.executable()->contains(first));
  EXPECT_EQ(ranges.learn_mapping_of(first + 100), CodeRanges::Learned::kExecutable);
  EXPECT_TRUE(ranges.executable()->contains(first));
  EXPECT_FALSE(ranges.executable()->contains(first + 4096));  // still without access
  EXPECT_EQ(ranges.executable()->ranges.size(), before + 1);
  EXPECT_TRUE(ranges.executable()->contains(reinterpret_cast<uintptr_t>(&ElfCodeMarker)));
  // The mapping grows: the wider one replaces it.
  ASSERT_EQ(mprotect(reserved, 2 * 4096, PROT_READ | PROT_EXEC), 0);
  EXPECT_EQ(ranges.learn_mapping_of(first + 4096), CodeRanges::Learned::kExecutable);
  EXPECT_TRUE(ranges.executable()->contains(first));
  EXPECT_TRUE(ranges.executable()->contains(first + 4096));
  EXPECT_EQ(ranges.executable()->ranges.size(), before + 1);
  const std::vector<CodeRange>& table = ranges.executable()->ranges;
  for (size_t i = 1; i < table.size(); ++i) EXPECT_LE(table[i - 1].end, table[i].start);  // sorted, disjoint
  munmap(reserved, 3 * 4096);
}

}  // namespace
}  // namespace umbra
