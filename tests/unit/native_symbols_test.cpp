#include "snapshot/native_symbols.h"

#include <dlfcn.h>
#include <elfutils/libdwelf.h>
#include <execinfo.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <libelf.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "../libc_debug_file.h"

// Two functions at 64-byte boundaries, alone in a section of their own so that nothing the linker places between
// other code ends where the second begins: padding lies before the second, which the test's exported symbols name.
extern "C" __attribute__((noinline, aligned(64), section(".text.umbra_padding_probes"))) int
umbra_test_before_padding(int x) { return x + 1; }
extern "C" __attribute__((noinline, aligned(64), section(".text.umbra_padding_probes"))) int
umbra_test_after_padding(int x) { return x * 3; }

namespace umbra {
namespace {

// umbra_symtab_probe's static function umbra_probe::symtab_only, from a copy of the library at `path`: an address
// inside it (a return address would point there too), and the copy's handle, kept open by the test.
struct Probe {
  void* handle = nullptr;
  uintptr_t inside = 0;
};

Probe load_probe(const std::string& path) {
  Probe probe;
  probe.handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (probe.handle == nullptr) return probe;
  auto address_of = reinterpret_cast<void* (*)()>(dlsym(probe.handle, "umbra_probe_symtab_only_address"));
  if (address_of) probe.inside = reinterpret_cast<uintptr_t>(address_of()) + 4;
  return probe;
}

const std::string kSymbols = UMBRA_TEST_SYMBOLS_DIR;
const std::string kProbeName = std::filesystem::path(UMBRA_TEST_SYMTAB_PROBE).filename().string();
const char* const kFunction = "umbra_probe::symtab_only(int)";  // demangled

// Exported symbols alone (dladdr) do not name the function: only the library's .symtab does.
TEST(NativeSymbols, AStaticFunctionIsNamedFromTheModulesSymtab) {
  Probe probe = load_probe(UMBRA_TEST_SYMTAB_PROBE);
  ASSERT_NE(probe.inside, 0u) << dlerror();
  Dl_info info{};
  ASSERT_NE(dladdr(reinterpret_cast<void*>(probe.inside), &info), 0);
  EXPECT_EQ(info.dli_sname, nullptr) << "exported after all: " << info.dli_sname;
  NativeSymbol symbol = NativeSymbols("/nonexistent").lookup(probe.inside);
  EXPECT_EQ(symbol.name, kFunction);
  EXPECT_EQ(symbol.module, kProbeName);
}

// A stripped copy whose .gnu_debuglink names a file in the .debug directory beside it.
TEST(NativeSymbols, AStrippedModuleIsNamedFromItsDebuglinkFile) {
  Probe probe = load_probe(kSymbols + "/debuglink/" + kProbeName);
  ASSERT_NE(probe.inside, 0u) << dlerror();
  NativeSymbol symbol = NativeSymbols("/nonexistent").lookup(probe.inside);
  EXPECT_EQ(symbol.name, kFunction);
}

// A stripped copy with no debuglink: its debug file is found by build id under the debug root, and without that
// root nothing names the function, which keeps the module and offset.
TEST(NativeSymbols, AStrippedModuleIsNamedFromItsBuildIdFile) {
  Probe probe = load_probe(kSymbols + "/buildid/" + kProbeName);
  ASSERT_NE(probe.inside, 0u) << dlerror();
  EXPECT_EQ(NativeSymbols(kSymbols + "/debug-root").lookup(probe.inside).name, kFunction);
  Dl_info info{};
  ASSERT_NE(dladdr(reinterpret_cast<void*>(probe.inside), &info), 0);
  uintptr_t from_base = probe.inside - 1 - reinterpret_cast<uintptr_t>(info.dli_fbase);  // lookup() takes ip - 1
  char offset[32];
  std::snprintf(offset, sizeof offset, "+0x%lx", static_cast<unsigned long>(from_base));
  EXPECT_EQ(NativeSymbols("/nonexistent").lookup(probe.inside).name, kProbeName + offset);
}

// A thread interrupted at a function's first instruction, or the signal return trampoline on a stack: the address
// before the frame's is padding, which names nothing; the frame's own address names its function.
TEST(NativeSymbols, AFrameAtAFunctionsFirstInstructionIsNamedByIt) {
  // The compiler emits the two in either order: the second in the section has the first's padding before it.
  uintptr_t before = reinterpret_cast<uintptr_t>(&umbra_test_before_padding);
  uintptr_t after = reinterpret_cast<uintptr_t>(&umbra_test_after_padding);
  uintptr_t start = std::max(before, after);
  const char* name = start == after ? "umbra_test_after_padding" : "umbra_test_before_padding";
  ASSERT_EQ(start - std::min(before, after), 64u) << "the two probes are not adjacent in their section";
  Dl_info previous{};
  ASSERT_TRUE(dladdr(reinterpret_cast<void*>(start - 1), &previous) != 0 && previous.dli_sname == nullptr)
      << "no padding before the function: " << previous.dli_sname;
  EXPECT_EQ(NativeSymbols("/nonexistent").lookup(start).name, name);
  EXPECT_EQ(NativeSymbols("/nonexistent").lookup(start + 1).name, name);
  EXPECT_EQ(umbra_test_before_padding(1) + umbra_test_after_padding(1), 5);
}

// libc's own debug file, as Debian's libc6-dbg installs it (by build id): the function that calls main is internal
// to libc, in no dynamic symbol table.
TEST(NativeSymbols, ALibcInternalFunctionIsNamedFromLibc6Dbg) {
  std::optional<std::string> libc_debug = testing::libc_debug_file();
  ASSERT_TRUE(libc_debug) << "libc cannot be found or read";
  const std::string& debug_file = *libc_debug;
  if (debug_file.empty() || !std::filesystem::exists(debug_file))
    GTEST_SKIP() << "libc's debug file is not installed (" << (debug_file.empty() ? "no build id" : debug_file)
                 << "): apt-get install libc6-dbg to run this test";

  void* frames[256];
  int depth = backtrace(frames, 256);
  NativeSymbols symbols;
  std::string seen;
  bool found = false;
  for (int i = 0; i < depth; ++i) {
    NativeSymbol frame = symbols.lookup(reinterpret_cast<uintptr_t>(frames[i]));
    if (frame.module != "libc.so.6") continue;
    seen += frame.name + " ";
    found = found || frame.name == "__libc_start_call_main";
    // The function, not the symbol version the debug file's .symtab adds ("__libc_start_main@@GLIBC_2.34").
    EXPECT_EQ(frame.name.find('@'), std::string::npos) << frame.name;
  }
  EXPECT_TRUE(found) << "no frame named __libc_start_call_main in libc.so.6; libc frames: " << seen;
}

}  // namespace
}  // namespace umbra
