#include "launcher.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "clr/guids.h"
#include "profiler/config.h"
#include "profiler/value_parsers.h"

namespace umbra::launcher {
namespace {

bool readable(const std::string& path) { return access(path.c_str(), R_OK) == 0; }

std::string directory_of(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// Each launcher option: its spellings, the UMBRA_* variable it sets, and how its value is checked.
struct Option {
  std::vector<std::string> names;
  const char* value_name;  // nullptr for a switch
  const char* variable;
  const char* help;
  // Returns what is wrong with `value` (empty when it is fine).
  std::string (*check)(const std::string& value);
};

std::string check_mode(const std::string& v) { return parse_mode(v) ? "" : "is not shadow or sampled"; }
std::string check_interval(const std::string& v) {
  return parse_unsigned(v, 1, 60000) ? "" : "is not a whole number from 1 to 60000";
}
std::string check_prefix(const std::string& v) { return v.empty() ? "needs a non-empty prefix" : ""; }
std::string check_formats(const std::string& v) {
  auto formats = split_list(v);
  if (formats.empty()) return "names no format";
  for (const auto& f : formats)
    if (!is_written_format(f)) return "names unknown format '" + f + "' (known: " + format_names() + ")";
  return "";
}
std::string check_reconcile(const std::string& v) {
  return parse_unsigned(v, 0, 60000) ? "" : "is not a whole number from 0 (off) to 60000";
}
std::string check_percent(const std::string& v) { return parse_percent(v) ? "" : "is not a percentage from 0 to 100"; }
std::string check_depth(const std::string& v) {
  return parse_unsigned(v, 16, 1u << 24) ? "" : "is not a whole number from 16 to 16777216";
}
std::string check_hooks(const std::string& v) { return parse_hook_family(v) ? "" : "is not elt3 or elt2"; }
std::string check_log_level(const std::string& v) {
  return is_log_level(v) ? "" : "is not trace, debug, info, warn, error, critical or off";
}

const std::vector<Option>& options() {
  static const std::vector<Option> table = {
      {{"--mode"}, "shadow|sampled", "UMBRA_MODE", "profiling mode (default shadow)", check_mode},
      {{"--interval-ms"}, "N", "UMBRA_INTERVAL_MS", "sampling interval, 1-60000 ms (default 10)", check_interval},
      {{"-o", "--output"}, "PREFIX", "UMBRA_OUTPUT", "report files PREFIX.json, PREFIX.txt (default ./umbra-<pid>)",
       check_prefix},
      {{"--format"}, "LIST", "UMBRA_FORMATS", "reports to write (default json,text)", check_formats},
      {{"--min-percent"}, "P", "UMBRA_MIN_PERCENT", "fold text-report nodes under P% of their thread (default 0.5)",
       check_percent},
      {{"--reconcile-ms"}, "N", "UMBRA_RECONCILE_MS",
       "shadow mode: check shadow stacks every N ms, 0 off (default 100)", check_reconcile},
      {{"--verify"}, nullptr, "UMBRA_VERIFY", "shadow mode: check at every tick, summarize differences at exit",
       nullptr},
      {{"--allow-inlining"}, nullptr, "UMBRA_ALLOW_INLINING", "let the JIT inline (faster; inlined calls are not seen)",
       nullptr},
      {{"--hooks"}, "elt3|elt2", "UMBRA_HOOKS", "shadow mode: hook family (default elt3, the fast path)",
       check_hooks},
      {{"--exact-times"}, nullptr, "UMBRA_EXACT_TIMES",
       "shadow mode: time each call exactly (TSC; costs more per call)", nullptr},
      {{"--max-depth"}, "N", "UMBRA_MAX_DEPTH", "shadow stack frames per thread (default 65536)", check_depth},
      {{"--log-level"}, "LEVEL", "UMBRA_LOG_LEVEL", "trace|debug|info|warn|error|critical|off (default warn)",
       check_log_level},
  };
  return table;
}

const Option* find_option(const std::string& arg) {
  for (const auto& o : options())
    for (const auto& n : o.names)
      if (n == arg) return &o;
  return nullptr;
}

}  // namespace

std::string usage() {
  std::string text =
      "usage: umbra run [options] -- COMMAND [ARGS...]\n"
      "       umbra report FILE.json [--format LIST] [-o PREFIX] [--thread NAME|TID] [--merge-threads]\n"
      "                    [--min-percent P] [--top N] [--collapsed-weight samples|self_ns|calls]\n"
      "                    [--collapsed-threads]\n"
      "\n"
      "Runs COMMAND (a .NET program) under the umbra profiler and returns its exit code.\n"
      "\n"
      "options (each also an environment variable):\n";
  for (const auto& o : options()) {
    std::string spelling;
    for (const auto& n : o.names) spelling += (spelling.empty() ? "" : ", ") + n;
    if (o.value_name) spelling += std::string(" ") + o.value_name;
    std::string variable = std::string(o.variable) + (o.value_name ? "" : "=1");
    char line[256];
    std::snprintf(line, sizeof line, "  %-26s %-22s %s\n", spelling.c_str(), variable.c_str(), o.help);
    text += line;
  }
  text += "  -h, --help                 this text\n";
  return text;
}

ParseResult parse_command_line(const std::vector<std::string>& args) {
  ParseResult result;
  if (args.empty()) {
    result.error = "missing command";
    return result;
  }
  if (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    result.help = true;
    return result;
  }
  if (args[0] != "run") {
    result.error = "unknown command '" + args[0] + "'";
    return result;
  }
  RunRequest run;
  size_t i = 1;
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a == "-h" || a == "--help") {
      result.help = true;
      return result;
    }
    const Option* option = find_option(a);
    if (option == nullptr) {
      if (!a.empty() && a[0] == '-') {
        result.error = "unknown option '" + a + "'";
        return result;
      }
      break;  // the command starts here (the `--` is optional)
    }
    if (option->value_name == nullptr) {
      run.environment.emplace_back(option->variable, "1");
      continue;
    }
    if (i + 1 >= args.size()) {
      result.error = a + " needs a value";
      return result;
    }
    const std::string& value = args[++i];
    if (std::string problem = option->check(value); !problem.empty()) {
      result.error = a + " '" + value + "' " + problem;
      return result;
    }
    run.environment.emplace_back(option->variable, value);
    if (std::string(option->variable) == "UMBRA_OUTPUT") run.output_prefix = value;
  }
  run.command.assign(args.begin() + long(i), args.end());
  if (run.command.empty()) {
    result.error = "no command to run after the options";
    return result;
  }
  result.run = std::move(run);
  return result;
}

std::optional<std::string> find_profiler_library(const std::string& launcher_path) {
  if (const char* env = std::getenv("UMBRA_LIBRARY"); env && *env) {
    if (readable(env)) return std::string(env);
    return std::nullopt;
  }
  std::string dir = directory_of(launcher_path);
  for (const std::string& candidate : {dir + "/libumbra.so", dir + "/../lib/umbra/libumbra.so"})
    if (readable(candidate)) return candidate;
  return std::nullopt;
}

}  // namespace umbra::launcher
