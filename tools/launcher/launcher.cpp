#include "launcher.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "clr/guids.h"
#include "profiler/options.h"
#include "profiler/value_parsers.h"
#include "util/paths.h"
#include "dump_command.h"
#include "report_command.h"

namespace umbra::launcher {
namespace {

bool readable(const std::string& path) { return access(path.c_str(), R_OK) == 0; }

}  // namespace

std::string usage() {
  std::string text = "usage: umbra run [options] -- COMMAND [ARGS...]\n";
  text += "       umbra attach PID [--duration S] [options]\n";
  text += "       " + std::string(kDumpSynopsis) + "\n";
  text += "       " + std::string(kReportSynopsis) +
          "\n"
          "run: runs COMMAND (a .NET program) under the umbra profiler and returns its exit code.\n"
          "attach: profiles the running .NET program PID in sampled mode for S seconds (or until Ctrl-C), writes\n"
          "        the report, and detaches; the program runs on without umbra.\n"
          "dump: asks the profiled program PID for the report of the period since its previous one (PREFIX.p<n>.*)\n"
          "\n"
          "options (each also an environment variable):\n";
  for (const Option& o : options()) {
    if (o.flags.empty()) continue;
    std::string help = o.help + (is_switch(o) ? "" : " (default " + shown_default(o) + ")");
    char line[256];
    std::snprintf(line, sizeof line, "  %-26s %-22s %s\n", shown_flags(o).c_str(), shown_variable(o).c_str(),
                  help.c_str());
    text += line;
  }
  text += "  -h, --help                 this text\n";
  text += "  --version                  print umbra's version\n";
  return text;
}

namespace {

// One option of the table at args[i] (its value at args[i + 1]), judged by the profiler's own rule, so that nothing
// runs with a value the profiler would not take. False with `error` set when it is wrong; `i` is left on the last
// argument used.
bool take_option(const std::vector<std::string>& args, size_t& i, const Option& option,
                 std::vector<std::pair<std::string, std::string>>& environment, std::optional<std::string>& prefix,
                 std::string& error) {
  const std::string& a = args[i];
  if (is_switch(option)) {
    environment.emplace_back(option.variable, "1");
    return true;
  }
  if (i + 1 >= args.size()) {
    error = a + " needs a value";
    return false;
  }
  const std::string& value = args[++i];
  Config judged;
  Verdict verdict = option.rule.store(value, judged, 0);
  if (!verdict.problem.empty()) {
    error = a + " '" + shown_value(option, value) + "' " +
            (verdict.flag_problem.empty() ? verdict.problem : verdict.flag_problem);
    return false;
  }
  environment.emplace_back(option.variable, value);
  if (std::string(option.variable) == "UMBRA_OUTPUT") prefix = value;
  return true;
}

// Seconds, a positive decimal number, as whole milliseconds (at least 1).
std::optional<uint32_t> parse_duration(const std::string& text) {
  std::optional<double> seconds = parse_decimal(text, 0, 1e6);
  if (!seconds || !(*seconds > 0)) return std::nullopt;
  return std::max<uint32_t>(1, uint32_t(std::ceil(*seconds * 1000)));
}

ParseResult parse_attach(const std::vector<std::string>& args) {
  ParseResult result;
  AttachRequest attach;
  if (args.size() < 2) {
    result.error = "attach needs the process id of a running .NET program";
    return result;
  }
  std::optional<uint64_t> pid = parse_unsigned(args[1], 1, std::numeric_limits<int>::max());
  if (!pid) {
    result.error = "attach: '" + args[1] + "' is not a process id";
    return result;
  }
  attach.pid = (long long)*pid;
  for (size_t i = 2; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      result.help = true;
      return result;
    }
    if (a == "--duration") {
      std::optional<uint32_t> ms = i + 1 < args.size() ? parse_duration(args[i + 1]) : std::nullopt;
      if (!ms) {
        result.error = i + 1 < args.size() ? "--duration '" + args[i + 1] + "' is not a number of seconds above 0"
                                           : "--duration needs a value";
        return result;
      }
      attach.duration_ms = *ms;
      ++i;
      continue;
    }
    const Option* option = find_flag(a);
    if (option == nullptr) {
      result.error = "unknown option '" + a + "'";
      return result;
    }
    if (!take_option(args, i, *option, attach.environment, attach.output_prefix, result.error)) return result;
  }
  result.attach = std::move(attach);
  return result;
}

}  // namespace

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
  if (args[0] == "--version" || args[0] == "version") {
    result.version = true;
    return result;
  }
  if (args[0] == "attach") return parse_attach(args);
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
    const Option* option = find_flag(a);
    if (option == nullptr) {
      if (!a.empty() && a[0] == '-') {
        result.error = "unknown option '" + a + "'";
        return result;
      }
      break;  // the command starts here (the `--` is optional)
    }
    if (!take_option(args, i, *option, run.environment, run.output_prefix, result.error)) return result;
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
