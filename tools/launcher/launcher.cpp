#include "launcher.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "clr/guids.h"
#include "profiler/options.h"
#include "util/paths.h"
#include "report_command.h"

namespace umbra::launcher {
namespace {

bool readable(const std::string& path) { return access(path.c_str(), R_OK) == 0; }

}  // namespace

std::string usage() {
  std::string text = "usage: umbra run [options] -- COMMAND [ARGS...]\n";
  text += "       " + std::string(kReportSynopsis) +
          "\n"
          "Runs COMMAND (a .NET program) under the umbra profiler and returns its exit code.\n"
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
    if (is_switch(*option)) {
      run.environment.emplace_back(option->variable, "1");
      continue;
    }
    if (i + 1 >= args.size()) {
      result.error = a + " needs a value";
      return result;
    }
    const std::string& value = args[++i];
    // Judged by the profiler's own rule, so that nothing runs with a value the profiler would not take.
    Config judged;
    Verdict verdict = option->rule.store(value, judged, 0);
    if (!verdict.problem.empty()) {
      result.error = a + " '" + value + "' " + (verdict.flag_problem.empty() ? verdict.problem : verdict.flag_problem);
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
