#include "profiler/options.h"

#include "profiler/pyroscope_ingest.h"
#include "util/join.h"

namespace umbra {

const std::vector<Option>& options() {
  static const std::vector<Option> table = {
      {.variable = "UMBRA_MODE", .flags = {"--mode"}, .value_name = "shadow|sampled", .default_value = "shadow",
       .help = "profiling mode", .rule = choice(&Config::mode, {Mode::kShadow, Mode::kSampled}, mode_name)},
      {.variable = "UMBRA_OUTPUT", .flags = {"-o", "--output"}, .value_name = "PREFIX",
       .default_value = "./umbra-<pid>", .help = "report files PREFIX.json, PREFIX.txt",
       .rule = prefix(&Config::output_prefix)},
      // After UMBRA_OUTPUT, whose prefix it extends in a descendant of the launched program.
      {.variable = "UMBRA_LAUNCHED_PID", .value_name = "PID", .help = "the process the launcher started",
       .rule = launched_pid()},
      {.variable = "UMBRA_FORMATS", .flags = {"--format"}, .value_name = "LIST", .default_value = "json,text",
       .help = "reports to write", .rule = format_list(&Config::formats)},
      {.variable = "UMBRA_RUNTIME_FRAMES", .flags = {"--runtime-frames"}, .value_name = "fold|keep",
       .default_value = "fold", .help = "the runtime's native frames: each run as one frame, or every one kept",
       .rule = choice(&Config::runtime_frames, {RuntimeFrames::kFold, RuntimeFrames::kKeep}, runtime_frames_name)},
      {.variable = "UMBRA_MIN_PERCENT", .flags = {"--min-percent"}, .value_name = "P", .default_value = "0.5",
       .help = "fold text-report nodes under P% of their thread", .rule = percentage(&Config::min_percent)},
      {.variable = "UMBRA_RECONCILE_MS", .flags = {"--reconcile-ms"}, .value_name = "N", .default_value = "100",
       .help = "check shadow stacks against the runtime's walk every N ms, 0 off",
       .rule = whole_number(&Config::reconcile_ms, {.min = 0, .max = 60000, .unit = "ms", .zero_means = "off"}),
       .only_in = Mode::kShadow},
      {.variable = "UMBRA_CHECK_MS", .flags = {"--check-ms"}, .value_name = "N", .default_value = "1000",
       .help = "sampled mode: check the stacks taken by signal against the runtime's walk every N ms, 0 off",
       .rule = whole_number(&Config::check_ms, {.min = 0, .max = 60000, .unit = "ms", .zero_means = "off"}),
       .only_in = Mode::kSampled},
      {.variable = "UMBRA_WALKER", .flags = {"--walker"}, .value_name = "signal|suspend", .default_value = "signal",
       .help = "sampled mode: stacks by signal where threads run, or at the runtime's safe points (suspend)",
       .rule = choice(&Config::walker, {Walker::kSuspend, Walker::kSignal}, walker_name)},
      {.variable = "UMBRA_VERIFY", .flags = {"--verify"}, .default_value = "0",
       .help = "check at every tick (shadow stacks, or sampled mode's stacks by signal), summarize at exit", .rule = on_off(&Config::verify)},
      {.variable = "UMBRA_INTERVAL_MS", .flags = {"--interval-ms"}, .value_name = "N", .default_value = "10",
       .help = "mean sampling interval in ms",
       .rule = whole_number(&Config::interval_ms, {.min = 1, .max = 60000, .unit = "ms"})},
      {.variable = "UMBRA_ALLOW_INLINING", .flags = {"--allow-inlining"}, .default_value = "0",
       .help = "let the JIT inline (faster; inlined calls are not seen)", .rule = on_off(&Config::allow_inlining)},
      {.variable = "UMBRA_HOOKS_FOR", .flags = {"--hooks-for"}, .value_name = "PATTERNS|all", .default_value = "@app",
       .help = "shadow mode: the methods hooked ([Assembly]Namespace.Type.Method globs, !exclusions, @app: the "
               "program's own assemblies); all: every method",
       .rule = method_patterns(&Config::hooks_for)},
      {.variable = "UMBRA_PRECOMPILED", .flags = {"--precompiled"}, .value_name = "keep|jit", .default_value = "keep",
       .help = "with --hooks-for: code without hooks runs precompiled (keep) or JIT-compiled",
       .rule = choice(&Config::precompiled, {Precompiled::kKeep, Precompiled::kJit}, precompiled_name)},
      {.variable = "UMBRA_HOOKS", .flags = {"--hooks"}, .value_name = "elt3|elt2", .default_value = "elt3",
       .help = "shadow mode: hook family, elt3 the fast path",
       .rule = choice(&Config::hooks, {HookFamily::kElt3, HookFamily::kElt2}, hook_family_name)},
      {.variable = "UMBRA_EXACT_TIMES", .flags = {"--exact-times"}, .default_value = "0",
       .help = "shadow mode: time each call exactly (TSC; costs more per call)", .rule = on_off(&Config::exact_times)},
      {.variable = "UMBRA_COARSE_TIMES", .flags = {"--coarse-times"}, .default_value = "0",
       .help = "shadow mode: the 1 ms clock even while calls are rare (the TSC is read then by default)",
       .rule = on_off(&Config::coarse_times)},
      {.variable = "UMBRA_MAX_DEPTH", .flags = {"--max-depth"}, .value_name = "N", .default_value = "65536",
       .help = "shadow stack frames per thread",
       .rule = whole_number(&Config::max_depth, {.min = 16, .max = 1u << 24})},
      {.variable = "UMBRA_MAX_TREE_MB", .flags = {"--max-tree-mb"}, .value_name = "N", .default_value = "4096",
       .help = "shadow mode: MiB for all threads' call trees",
       .rule = whole_number(&Config::max_tree_mb, {.min = 1, .max = 1u << 20, .unit = "MiB"})},
      {.variable = "UMBRA_LOG_LEVEL", .flags = {"--log-level"}, .value_name = "LEVEL", .default_value = "warn",
       .help = log_level_names(), .rule = log_level(&Config::log_level)},
      {.variable = "UMBRA_EVERY", .flags = {"--every"}, .value_name = "DURATION",
       .help = "a report of each period (PREFIX.p1.*, PREFIX.p2.*, ...): 500ms, 30s, 5m, 1h",
       .rule = duration(&Config::every_ms, 100, 24 * 3600 * 1000, "no periodic reports")},
      {.variable = "UMBRA_PUSH", .flags = {"--push"}, .value_name = "URL",
       .help = "push each period's pprof to Grafana Pyroscope at URL (http:// or https://)",
       .rule = push_url(&Config::push_url), .secret = true},
      {.variable = "UMBRA_PUSH_NAME", .flags = {"--push-name"}, .value_name = "NAME",
       .help = "with --push: the application name (default: the program's)", .rule = push_name(&Config::push_name)},
      {.variable = "UMBRA_PUSH_LABELS", .flags = {"--push-labels"}, .value_name = "LIST",
       .help = "with --push: labels beside host, pid and mode (env=prod,region=eu)",
       .rule = push_labels(&Config::push_labels)},
      {.variable = "UMBRA_BENCH_NOOP_HOOKS", .default_value = "0", .help = "hooks that return at once, for benchmarks",
       .rule = on_off(&Config::noop_hooks)},
      {.variable = "UMBRA_LIBRARY", .value_name = "PATH", .help = "where libumbra.so is, if not next to the launcher"},
  };
  return table;
}

const Option* find_flag(std::string_view flag) {
  for (const auto& option : options())
    for (const auto& spelling : option.flags)
      if (spelling == flag) return &option;
  return nullptr;
}

bool is_switch(const Option& option) { return option.value_name == nullptr; }

std::string shown_value(const Option& option, std::string_view value) {
  return option.secret ? redacted_url(value) : std::string(value);
}

std::string default_for(const Option& option, int64_t pid) {
  std::string text = option.default_value ? option.default_value : "";
  if (auto at = text.find("<pid>"); at != std::string::npos) text.replace(at, 5, std::to_string(pid));
  return text;
}

std::string shown_flags(const Option& option) {
  return join(option.flags) + (is_switch(option) ? "" : std::string(" ") + option.value_name);
}

std::string shown_variable(const Option& option) {
  return std::string(option.variable) + (is_switch(option) ? "=1" : "");
}

std::string shown_default(const Option& option) {
  if (is_switch(option)) return default_for(option, 0) == "1" ? "on" : "off";
  return option.default_value ? option.default_value : "";
}

}  // namespace umbra
