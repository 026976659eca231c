#include "profiler/ready_to_run_windows.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "unimplemented_profiler_info.h"

namespace umbra {
namespace {

constexpr clr::DWORD kShadowMask =
    clr::COR_PRF_MONITOR_ENTERLEAVE | clr::COR_PRF_MONITOR_MODULE_LOADS | clr::COR_PRF_MONITOR_JIT_COMPILATION;

// The runtime's event mask, as the windows set it.
struct MaskRecorder : testing::UnimplementedProfilerInfo {
  std::atomic<clr::DWORD> mask{kShadowMask};
  std::atomic<int> calls{0};
  clr::HRESULT SetEventMask(clr::DWORD events) override {
    mask = events;
    ++calls;
    return clr::S_OK;
  }
  bool hooks_on() const { return (mask.load() & clr::COR_PRF_MONITOR_ENTERLEAVE) != 0; }
};

TEST(ReadyToRunWindows, HooksAreOffFromTheFirstLoadStartedToTheLastLoadFinished) {
  MaskRecorder info;
  ReadyToRunWindows windows(&info, kShadowMask);
  windows.module_load_started();
  EXPECT_FALSE(info.hooks_on());
  windows.module_load_started();  // a load on another thread, inside the same window
  windows.module_load_finished();
  EXPECT_FALSE(info.hooks_on());
  windows.module_load_finished();
  EXPECT_TRUE(info.hooks_on());
  EXPECT_EQ(info.mask.load(), kShadowMask);
  EXPECT_EQ(windows.windows(), 1u);
  windows.module_load_finished();  // a load that began before the windows existed
  EXPECT_TRUE(info.hooks_on());
  EXPECT_EQ(info.calls.load(), 2);
}

// Another thread compiling a hooked method may not have read the flags yet: the load keeps hooks on.
TEST(ReadyToRunWindows, ALoadKeepsHooksOnWhileAnotherThreadCompilesAHookedMethod) {
  MaskRecorder info;
  ReadyToRunWindows windows(&info, kShadowMask);
  std::atomic<bool> compiling{false}, loaded{false};
  std::thread compiler([&] {
    windows.hooked_compilation_started();
    compiling = true;
    while (!loaded) std::this_thread::yield();
    windows.hooked_compilation_finished();
  });
  while (!compiling) std::this_thread::yield();
  windows.module_load_started();
  EXPECT_TRUE(info.hooks_on());
  windows.module_load_finished();
  loaded = true;
  compiler.join();
  EXPECT_EQ(windows.loads_with_hooks(), 1u);
  EXPECT_EQ(windows.windows(), 0u);
  EXPECT_EQ(info.calls.load(), 0);
  // The compilation is over: the next load opens a window.
  windows.module_load_started();
  EXPECT_FALSE(info.hooks_on());
  windows.module_load_finished();
}

// The loading thread's own compilation read its flags before the load began (the JIT loads what a method names).
TEST(ReadyToRunWindows, TheLoadingThreadsOwnCompilationDoesNotKeepHooksOn) {
  MaskRecorder info;
  ReadyToRunWindows windows(&info, kShadowMask);
  windows.hooked_compilation_started();
  windows.module_load_started();
  EXPECT_FALSE(info.hooks_on());
  windows.module_load_finished();
  windows.hooked_compilation_finished();
  EXPECT_TRUE(info.hooks_on());
  EXPECT_EQ(windows.windows(), 1u);
}

// A hooked method's compilation that begins inside a window waits for it to close, so it never reads the flags with
// hooks off.
TEST(ReadyToRunWindows, AHookedCompilationWaitsForAnOpenWindowToClose) {
  MaskRecorder info;
  ReadyToRunWindows windows(&info, kShadowMask);
  windows.module_load_started();
  std::atomic<bool> hooks_on_when_compiled{false}, started{false};
  std::thread compiler([&] {
    started = true;
    windows.hooked_compilation_started();
    hooks_on_when_compiled = info.hooks_on();
    windows.hooked_compilation_finished();
  });
  while (!started) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  windows.module_load_finished();
  compiler.join();
  EXPECT_TRUE(hooks_on_when_compiled);
  EXPECT_EQ(windows.waits_abandoned(), 0u);
}

// Many loads and hooked compilations at once: every compilation sees hooks on, and they end on.
TEST(ReadyToRunWindows, NoHookedCompilationEverSeesHooksOffUnderContention) {
  MaskRecorder info;
  ReadyToRunWindows windows(&info, kShadowMask);
  std::atomic<int> compiled_with_hooks_off{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) {
        windows.module_load_started();
        windows.module_load_finished();
      }
    });
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) {
        windows.hooked_compilation_started();
        if (!info.hooks_on()) ++compiled_with_hooks_off;
        windows.hooked_compilation_finished();
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(compiled_with_hooks_off.load(), 0);
  EXPECT_TRUE(info.hooks_on());
}

}  // namespace
}  // namespace umbra
