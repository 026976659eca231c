#include "report/runtime_folding.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "report/report_tree.h"

namespace umbra {
namespace {

// Frames as the sampler names them: managed methods, and native functions with their module.
ReportNode managed(const std::string& name, std::vector<ReportNode> children = {}, uint64_t self = 0) {
  ReportNode n;
  n.frame = intern_frame(name, "App.dll", "managed");
  n.self_samples = self;
  n.children = std::move(children);
  return n;
}

ReportNode native(const std::string& name, const std::string& module, std::vector<ReportNode> children = {},
                  uint64_t self = 0) {
  ReportNode n;
  n.frame = intern_frame(name, module, "native");
  n.self_samples = self;
  n.children = std::move(children);
  return n;
}

ReportNode coreclr(uint64_t offset, std::vector<ReportNode> children = {}, uint64_t self = 0) {
  return native("libcoreclr.so+0x" + std::to_string(offset), "libcoreclr.so", std::move(children), self);
}

std::vector<ReportNode> finished(std::vector<ReportNode> roots) {
  for (auto& r : roots) finish_totals(r);
  return roots;
}

// "name:samples{child,child}", children in order: the tree's shape and its counts in one string.
std::string shape(const std::vector<ReportNode>& nodes) {
  std::string out;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (i) out += ',';
    out += nodes[i].name() + ":" + std::to_string(nodes[i].samples);
    if (!nodes[i].children.empty()) out += "{" + shape(nodes[i].children) + "}";
  }
  return out;
}

uint64_t samples(const std::vector<ReportNode>& roots) {
  uint64_t total = 0;
  for (const auto& r : roots) total += r.samples;
  return total;
}

// The main thread as sampled mode sees it: the host's start-up (dotnet, libc, hostfxr, hostpolicy, coreclr), then
// Main, which waits in Thread.Join: the runtime's frames, then libc's condition wait.
TEST(RuntimeFolding, TheMainThreadsStartUpBecomesOneRootAndAWaitKeepsItsLibcCall) {
  auto wait = native("pthread_cond_wait", "libc.so.6", {native("__futex_abstimed_wait_common", "libc.so.6", {}, 88)});
  auto join = managed("System.Threading.Thread.Join", {coreclr(0x46eb9a, {coreclr(0x41d09b, {coreclr(0x631611, {wait})})})});
  auto main = managed("App.Program.Main", {join, managed("App.Program.Hot", {}, 37)}, 2);
  auto startup = native("dotnet+0x6bd9", "dotnet", {
      native("__libc_start_main", "libc.so.6", {
          native("__libc_start_call_main", "libc.so.6", {
              native("hostfxr_main_startupinfo", "libhostfxr.so", {
                  native("corehost_main", "libhostpolicy.so", {
                      native("coreclr_execute_assembly", "libcoreclr.so", {coreclr(0x5fb3cb, {main})})})})})})});
  std::vector<ReportNode> roots = finished({startup});
  EXPECT_EQ(fold_runtime_frames(roots), 2u);
  EXPECT_EQ(shape(roots),
            "[native start-up]:127{App.Program.Main:127{System.Threading.Thread.Join:88{[libcoreclr.so]:88{"
            "pthread_cond_wait:88{__futex_abstimed_wait_common:88}}},App.Program.Hot:37}}");
  EXPECT_EQ(roots[0].kind(), "native");
  EXPECT_EQ(roots[0].module(), "");
  EXPECT_EQ(roots[0].self_samples, 0u);
}

// Every other thread starts in libc's clone3 and start_thread, then the runtime's thread start.
TEST(RuntimeFolding, AWorkerThreadsStartUpBecomesOneRoot) {
  std::vector<ReportNode> roots = finished({native("__clone3", "libc.so.6", {native("start_thread", "libc.so.6", {
      coreclr(0x63cf50, {coreclr(0x5fb3cb, {managed("System.Threading.Thread.StartCallback", {}, 5)})})})})});
  fold_runtime_frames(roots);
  EXPECT_EQ(shape(roots), "[native start-up]:5{System.Threading.Thread.StartCallback:5}");
}

// Without libc's debug file its start-up functions have no name; at a thread's root they are start-up all the same,
// and so is an app host's code (an executable named after the program).
TEST(RuntimeFolding, UnnamedLibcFramesAndAnAppHostAtTheRootAreStartUp) {
  std::vector<ReportNode> roots = finished({native("Workloads+0x6bd9", "Workloads", {
      native("__libc_start_main", "libc.so.6", {native("libc.so.6+0x271ca", "libc.so.6", {
          native("Workloads+0x7bee", "Workloads", {coreclr(0x10, {managed("Workloads.Program.Main", {}, 3)})})})})})});
  fold_runtime_frames(roots);
  EXPECT_EQ(shape(roots), "[native start-up]:3{Workloads.Program.Main:3}");
}

// Away from the root, only the runtime's own frames fold: libc's work, other libraries, the program's own native
// code, an unnamed libc frame, an executable's frame and a frame of no known module stay, each where it was.
TEST(RuntimeFolding, OtherNativeFramesStay) {
  std::vector<ReportNode> roots = finished({managed("App.Program.Main", {
      native("deflate", "libz.so.1", {native("deflate_slow", "libz.so.1", {}, 4)}),
      native("SystemNative_Read", "libSystem.Native.so", {native("read", "libc.so.6", {}, 3)}),
      native("umbra_native_spin", "libumbra_testnative.so", {}, 2),
      native("libc.so.6+0x1098eb", "libc.so.6", {}, 1),
      native("MyHost+0x10", "MyHost", {}, 1),
      native("[unknown 0x7f0000001000]", "", {}, 1)})});
  std::string before = shape(roots);
  EXPECT_EQ(fold_runtime_frames(roots), 0u);
  EXPECT_EQ(shape(roots), before);
}

// A run that passes through several of the runtime's modules (the JIT called from the runtime) is one frame naming
// each once, in a fixed order; the frames below it hang under it.
TEST(RuntimeFolding, ARunThroughSeveralModulesIsOneFrameNamingThem) {
  std::vector<ReportNode> roots = finished({managed("App.Program.Main", {
      native("libclrjit.so+0x100", "libclrjit.so", {coreclr(0x20, {
          native("libclrjit.so+0x200", "libclrjit.so", {managed("App.Program.Callback", {}, 6)}, 1)})})})});
  fold_runtime_frames(roots);
  EXPECT_EQ(shape(roots), "App.Program.Main:7{[libcoreclr.so+libclrjit.so]:7{App.Program.Callback:6}}");
  EXPECT_EQ(roots[0].children[0].self_samples, 1u);
}

// A run that branches is still one frame: its frames' own samples are summed, and the frames below its branches
// become its children, merged where they are the same method. Two runs under one parent become one frame too.
TEST(RuntimeFolding, BranchesOfARunAndRunsSideBySideMerge) {
  std::vector<ReportNode> roots = finished({managed("App.Program.Main", {
      coreclr(0x1, {coreclr(0x2, {managed("App.Program.Callback", {}, 5)}, 2),
                    coreclr(0x3, {managed("App.Program.Callback", {}, 4), managed("App.Program.Other", {}, 1)})},
              1),
      coreclr(0x4, {managed("App.Program.Callback", {}, 10)}),
      managed("App.Program.Hot", {}, 20)})});
  fold_runtime_frames(roots);
  ASSERT_EQ(roots[0].children.size(), 2u);
  const ReportNode& folded = roots[0].children[0];
  EXPECT_EQ(shape({folded}), "[libcoreclr.so]:23{App.Program.Callback:19,App.Program.Other:1}");
  EXPECT_EQ(folded.self_samples, 3u);
  EXPECT_EQ(samples(roots), 43u);
}

// Shadow mode's native frames (spliced from snapshots) carry their child's time and no calls; the folded frame
// takes the run's time, and the tree's totals stay what they were, CPU samples included.
TEST(RuntimeFolding, TimesAndCpuSamplesAddUp) {
  auto callback = managed("App.Program.Callback", {}, 3);
  callback.calls = 7;
  callback.total_ns = 500;
  callback.self_cpu_samples = 2;
  auto inner = coreclr(0x2, {callback});
  inner.total_ns = 500;
  auto outer = coreclr(0x1, {inner});
  outer.total_ns = 500;
  auto main = managed("App.Program.Main", {outer}, 1);
  main.calls = 1;
  main.total_ns = 900;
  main.self_cpu_samples = 1;
  std::vector<ReportNode> roots = finished({main});
  fold_runtime_frames(roots);
  const ReportNode& folded = roots[0].children[0];
  EXPECT_EQ(folded.name(), "[libcoreclr.so]");
  EXPECT_EQ(folded.total_ns, 500u);
  EXPECT_EQ(folded.self_ns, 0u);
  EXPECT_FALSE(folded.calls.has_value());
  EXPECT_EQ(folded.cpu_samples, 2u);
  EXPECT_EQ(roots[0].cpu_samples, 3u);
  EXPECT_EQ(roots[0].self_ns, 400u);
  EXPECT_EQ(folded.children[0].calls, 7u);
}

TEST(RuntimeFolding, FoldingTwiceChangesNothing) {
  std::vector<ReportNode> roots = finished({native("__clone3", "libc.so.6", {
      coreclr(0x1, {managed("App.Worker.Run", {coreclr(0x2, {native("epoll_wait", "libc.so.6", {}, 9)})})})})});
  EXPECT_EQ(fold_runtime_frames(roots), 2u);
  std::string once = shape(roots);
  EXPECT_EQ(once, "[native start-up]:9{App.Worker.Run:9{[libcoreclr.so]:9{epoll_wait:9}}}");
  EXPECT_EQ(fold_runtime_frames(roots), 0u);
  EXPECT_EQ(shape(roots), once);
}

TEST(RuntimeFolding, ThePlumbingRule) {
  EXPECT_TRUE(is_runtime_plumbing(*intern_frame("libcoreclr.so+0x1", "libcoreclr.so", "native")));
  EXPECT_TRUE(is_runtime_plumbing(*intern_frame("hostfxr_main", "libhostfxr.so", "native")));
  EXPECT_TRUE(is_runtime_plumbing(*intern_frame("__libc_start_main", "libc.so.6", "native")));
  EXPECT_TRUE(is_runtime_plumbing(*intern_frame("start_thread", "libc.so.6", "native")));
  EXPECT_FALSE(is_runtime_plumbing(*intern_frame("pthread_cond_wait", "libc.so.6", "native")));
  EXPECT_FALSE(is_runtime_plumbing(*intern_frame("deflate", "libz.so.1", "native")));
  // A managed method or a marker is never plumbing, whatever its module says.
  EXPECT_FALSE(is_runtime_plumbing(*intern_frame("X", "libcoreclr.so", "managed")));
  EXPECT_FALSE(is_runtime_plumbing(*intern_frame("[calls beyond the node limit]", "", "marker")));
}

}  // namespace
}  // namespace umbra
