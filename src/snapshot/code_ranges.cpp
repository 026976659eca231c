#include "snapshot/code_ranges.h"

#include "snapshot/mapping_query.h"

#include <link.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <ctime>

namespace umbra {

const CodeRange* CodeRangeTable::find(uintptr_t ip) const {
  size_t lo = 0, hi = ranges.size();
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (ranges[mid].end <= ip) lo = mid + 1;
    else hi = mid;
  }
  return lo < ranges.size() && ranges[lo].start <= ip ? &ranges[lo] : nullptr;
}

namespace {
// Built when the library loads, so a signal handler never runs an initialization.
CodeRanges* const g_process_code_ranges = new CodeRanges;
}  // namespace

CodeRanges& process_code_ranges() { return *g_process_code_ranges; }

namespace {

struct Counters {
  unsigned long long adds = 0;
  unsigned long long subs = 0;
};

}  // namespace

void CodeRanges::refresh() {
  Counters seen;
  // The loader's own counters tell whether anything changed; the first object is enough to read them.
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t size, void* data) -> int {
        auto* c = static_cast<Counters*>(data);
        if (size >= offsetof(dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
          c->adds = info->dlpi_adds;
          c->subs = info->dlpi_subs;
        }
        return 1;
      },
      &seen);
  refresh_executable();
  if (current() != nullptr && seen.adds == adds_ && seen.subs == subs_) return;
  auto table = std::make_unique<CodeRangeTable>();
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        auto* t = static_cast<CodeRangeTable*>(data);
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X)) continue;
          uintptr_t start = info->dlpi_addr + ph.p_vaddr;
          t->ranges.push_back({start, start + ph.p_memsz});
        }
        return 0;
      },
      table.get());
  std::sort(table->ranges.begin(), table->ranges.end(),
            [](const CodeRange& a, const CodeRange& b) { return a.start < b.start; });
  adds_ = seen.adds;
  subs_ = seen.subs;
  table->generation = ++generations_;
  current_.store(table.get(), std::memory_order_release);
  tables_.push_back(std::move(table));
}

// JIT code heaps grow in reservations now and then: read once a second, and sooner when an address is not found
// (MethodsByIp). Asked of the kernel where it can answer; reading /proc/self/maps costs 0.1-0.8 ms.
void CodeRanges::refresh_executable(uint64_t min_age_ns) {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  uint64_t now = uint64_t(ts.tv_sec) * 1'000'000'000u + uint64_t(ts.tv_nsec);
  if (executable() != nullptr && now - executable_read_ns_ < min_age_ns) return;
  executable_read_ns_ = now;
  auto table = std::make_unique<CodeRangeTable>();
  std::vector<QueriedMapping> queried;
  if (!queries_unsupported_ && MappingQueries().executable_mappings(queried) == MappingQuery::kFound) {
    // Reservations are not needed here: an address outside these tables is then asked about alone.
    for (const QueriedMapping& m : queried) table->ranges.push_back({m.start, m.end});
  } else {
    FILE* maps = std::fopen("/proc/self/maps", "re");
    if (maps == nullptr) return;
    auto reserved = std::make_unique<CodeRangeTable>();
    char line[512];
    while (std::fgets(line, sizeof line, maps)) {
      unsigned long start = 0, end = 0;
      char perms[5] = {};
      if (std::sscanf(line, "%lx-%lx %4s", &start, &end, perms) != 3) continue;
      if (perms[2] == 'x') table->ranges.push_back({uintptr_t(start), uintptr_t(end)});
      else if (perms[0] == '-' && perms[1] == '-') reserved->ranges.push_back({uintptr_t(start), uintptr_t(end)});
    }
    std::fclose(maps);
    reserved_ = std::move(reserved);
  }
  const CodeRangeTable* old = executable();
  bool same = old != nullptr && old->ranges.size() == table->ranges.size() &&
              std::equal(old->ranges.begin(), old->ranges.end(), table->ranges.begin(),
                         [](const CodeRange& a, const CodeRange& b) { return a.start == b.start && a.end == b.end; });
  if (same) return;
  executable_.store(table.get(), std::memory_order_release);
  tables_.push_back(std::move(table));
}

CodeRanges::Learned CodeRanges::learn_mapping_of(uintptr_t ip) {
  if (queries_unsupported_) return Learned::kUnknown;
  QueriedMapping mapping;
  switch (MappingQueries().find(ip, mapping)) {
    case MappingQuery::kUnsupported:
      queries_unsupported_ = true;
      return Learned::kUnknown;
    case MappingQuery::kNoMapping:
      return Learned::kNotExecutable;
    case MappingQuery::kFound:
      break;
  }
  if (!mapping.executable) return Learned::kNotExecutable;
  // The new mapping replaces any it overlaps: a mapping read earlier may have grown or been replaced since.
  auto table = std::make_unique<CodeRangeTable>();
  if (const CodeRangeTable* old = executable())
    for (const CodeRange& range : old->ranges)
      if (range.end <= mapping.start || range.start >= mapping.end) table->ranges.push_back(range);
  CodeRange added{mapping.start, mapping.end};
  table->ranges.insert(std::upper_bound(table->ranges.begin(), table->ranges.end(), added,
                                        [](const CodeRange& a, const CodeRange& b) { return a.start < b.start; }),
                       added);
  executable_.store(table.get(), std::memory_order_release);
  tables_.push_back(std::move(table));
  return Learned::kExecutable;
}

const CodeRange* executable_range_of(uintptr_t ip) {
  const CodeRangeTable* t = process_code_ranges().executable();
  if (const CodeRange* range = t == nullptr ? nullptr : t->find(ip)) return range;
  // A library loaded since the mappings were last read: the ELF table follows every load at the next tick.
  const CodeRangeTable* elf = process_code_ranges().current();
  return elf == nullptr ? nullptr : elf->find(ip);
}

}  // namespace umbra
