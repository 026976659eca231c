#include "report/runtime_folding.h"

#include <algorithm>
#include <array>
#include <string>

#include "report/report_tree.h"

namespace umbra {
namespace {

// The runtime and its host, in the order a folded frame names them.
constexpr std::array<std::string_view, 8> kRuntimeModules = {
    "dotnet",       "libhostfxr.so", "libhostpolicy.so", "libcoreclr.so",
    "libclrjit.so", "libclrgc.so",   "libclrgcexp.so",   "libcoreclrtraceptprovider.so"};

// libc's start-up: where the main thread (_start, __libc_start_main) and every other thread (clone3,
// start_thread) begin. The names are those of its symbol tables (libc6-dbg names the internal ones).
constexpr std::array<std::string_view, 9> kLibcStartUp = {
    "_start", "__libc_start_main", "__libc_start_call_main", "start_thread", "clone",
    "clone3", "__clone",           "__clone3",               "__clone_internal"};

bool is_libc(std::string_view module) { return module.starts_with("libc.so"); }

size_t module_rank(std::string_view module) {
  return size_t(std::find(kRuntimeModules.begin(), kRuntimeModules.end(), module) - kRuntimeModules.begin());
}

// At a thread's root: also every libc frame (its start-up, named or not) and an executable's (dotnet, an app host).
bool is_plumbing(const ReportFrame& frame, bool at_root) {
  if (is_runtime_plumbing(frame)) return true;
  if (!at_root || frame.kind != "native") return false;
  return is_libc(frame.module) || (!frame.module.empty() && frame.module.find(".so") == std::string::npos);
}

void add_optional(std::optional<uint64_t>& into, const std::optional<uint64_t>& from) {
  if (from) into = into.value_or(0) + *from;
}

// Moves the run that starts at `top` into `folded`: its counts summed, its modules listed, and the frames below it
// that are not plumbing merged as `folded`'s children. Iterative: a run can be long.
void absorb(ReportNode&& top, bool at_root, ReportNode& folded, std::vector<std::string_view>& modules) {
  folded.total_ns = top.total_ns;  // the run's time is its first frame's: every frame below is inside it
  SiblingMerger below(folded.children);
  std::vector<ReportNode> pending;
  pending.push_back(std::move(top));
  while (!pending.empty()) {
    ReportNode node = std::move(pending.back());
    pending.pop_back();
    if (std::find(modules.begin(), modules.end(), node.module()) == modules.end()) modules.push_back(node.module());
    folded.self_samples += node.self_samples;
    folded.self_cpu_samples += node.self_cpu_samples;
    folded.tail_entries += node.tail_entries;
    add_optional(folded.calls, node.calls);
    for (ReportNode& child : node.children) {
      if (is_plumbing(*child.frame, at_root)) pending.push_back(std::move(child));
      else below.add(std::move(child));
    }
  }
}

// "[libcoreclr.so+libclrjit.so]": the runtime's modules in their order, then any other (libc) by name.
std::string folded_name(std::vector<std::string_view> modules) {
  std::sort(modules.begin(), modules.end(), [](std::string_view a, std::string_view b) {
    size_t ra = module_rank(a), rb = module_rank(b);
    return ra != rb ? ra < rb : a < b;
  });
  std::string name = "[";
  for (size_t i = 0; i < modules.size(); ++i) {
    if (i) name += '+';
    name += modules[i];
  }
  return name + "]";
}

// Folds the runs that start among `nodes`, then below them. Recursive, once per level.
uint64_t fold_level(std::vector<ReportNode>& nodes, bool at_root) {
  uint64_t runs = 0;
  if (std::any_of(nodes.begin(), nodes.end(), [&](const ReportNode& n) { return is_plumbing(*n.frame, at_root); })) {
    std::vector<ReportNode> level;
    level.reserve(nodes.size());
    SiblingMerger merger(level);
    for (ReportNode& node : nodes) {
      if (!is_plumbing(*node.frame, at_root)) {
        merger.add(std::move(node));
        continue;
      }
      ReportNode folded;
      std::vector<std::string_view> modules;  // views of interned frames' strings, which live as long as the process
      absorb(std::move(node), at_root, folded, modules);
      folded.frame = intern_frame(at_root ? std::string(kNativeStartUp) : folded_name(modules), "", "native");
      finish_node(folded);
      merger.add(std::move(folded));
      ++runs;
    }
    nodes = std::move(level);
  }
  for (ReportNode& node : nodes) runs += fold_level(node.children, false);
  return runs;
}

}  // namespace

bool is_runtime_plumbing(const ReportFrame& frame) {
  if (frame.kind != "native") return false;
  if (module_rank(frame.module) < kRuntimeModules.size()) return true;
  return is_libc(frame.module) &&
         std::find(kLibcStartUp.begin(), kLibcStartUp.end(), frame.name) != kLibcStartUp.end();
}

bool is_start_up_plumbing(const ReportFrame& frame) { return is_plumbing(frame, true); }

uint64_t fold_runtime_frames(std::vector<ReportNode>& roots) { return fold_level(roots, true); }

uint64_t fold_runtime_frames(Report& report) {
  uint64_t runs = 0;
  for (ReportThread& thread : report.threads) runs += fold_runtime_frames(thread.roots);
  return runs;
}

}  // namespace umbra
