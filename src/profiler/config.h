// umbra's configuration, read once from UMBRA_* environment variables at Initialize.
// A bad value never stops the profiled program: it yields one warning line (variable, value, what umbra does
// instead) and the default is used.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "report/report.h"

namespace umbra {

enum class Mode { kShadow, kSampled };
// Shadow mode's hook family: ELT3 (the JIT calls umbra's trampolines directly) or ELT2 (through the runtime's stub).
enum class HookFamily { kElt3, kElt2 };
// Focused shadow mode: methods without hooks run from the runtime's precompiled code, or are all JIT-compiled.
enum class Precompiled { kKeep, kJit };
// Sampled mode's walker: suspensions and DoStackSnapshot, or stacks taken by signal where each thread runs.
enum class Walker { kSuspend, kSignal };

// Each option's variable and default are in the option table (options.cpp).
struct Config {
  Mode mode{};
  std::string output_prefix;  // <prefix>.json, <prefix>.txt
  bool descendant = false;    // started by the launched program: umbra's messages go to <prefix>.log, not stderr
  int64_t launched_pid = 0;   // the program the launcher started (UMBRA_LAUNCHED_PID), 0 if none
  bool attached = false;      // loaded by `umbra attach`: sampled mode only, and the session ends by detaching
  std::string log_level;
  double min_percent{};
  uint32_t interval_ms{};
  uint32_t reconcile_ms{};  // a snapshot to check the shadow stacks against; 0: none
  uint32_t check_ms{};      // sampled mode: a suspension to check the stacks taken by signal against; 0: none
  Walker walker = Walker::kSignal;
  bool verify{};            // reconcile at every tick and summarize differences loudly at exit
  std::vector<std::string> formats;
  RuntimeFrames runtime_frames{};  // the runtime's native frames in the formats people read: folded or kept
  bool allow_inlining{};  // inlined calls are invisible to the hooks
  std::string hooks_for;  // shadow mode: the methods that get hooks (names/method_patterns.h); empty: every one (all)
  Precompiled precompiled{};
  uint32_t max_depth{};   // shadow stack capacity per thread
  uint32_t max_tree_mb{};  // memory for all threads' call-tree nodes
  HookFamily hooks{};
  bool exact_times{};  // time every call with the TSC instead of the 1 ms coarse clock
  bool coarse_times{};  // the 1 ms clock throughout, not only while hooked calls are frequent
  bool noop_hooks{};   // UMBRA_BENCH_NOOP_HOOKS: hooks that return at once, for benchmarks only
  uint32_t every_ms{};      // a periodic report (<prefix>.p<n>.*) every this long; 0: none
  std::string push_url;     // each period's pprof goes to this Pyroscope; empty: none pushed
  std::string push_name;    // the application name pushed under; empty: the program's
  std::string push_labels;  // labels pushed beside host, pid and mode: "key=value,..." (checked)

  bool operator==(const Config&) const = default;
};

using EnvLookup = std::function<std::optional<std::string>(const char* name)>;

// Reads the configuration; appends one human-readable line per bad value to `warnings`.
Config load_config(const EnvLookup& env, int64_t pid, std::vector<std::string>& warnings);

// One line for each UMBRA_* variable in `environment` (a NULL-terminated environ) that umbra does not read.
std::vector<std::string> unknown_variable_warnings(const char* const* environment);

const char* mode_name(Mode mode);
const char* hook_family_name(HookFamily family);
const char* precompiled_name(Precompiled precompiled);
const char* walker_name(Walker walker);

// The report formats umbra writes, and their names as a list for messages ("json, text, ...").
bool is_written_format(const std::string& format);
std::string format_names();

}  // namespace umbra
