#include "launcher.h"

#include <unistd.h>

#include <cstdlib>

#include "clr/guids.h"
#include "profiler/config.h"

namespace umbra::launcher {
namespace {

bool readable(const std::string& path) { return access(path.c_str(), R_OK) == 0; }

std::string directory_of(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

}  // namespace

std::string usage() {
  return "usage: umbra run [options] -- COMMAND [ARGS...]\n"
         "\n"
         "Runs COMMAND (a .NET program) under the umbra profiler and returns its exit code.\n"
         "\n"
         "options (each also an environment variable):\n"
         "  --mode shadow|sampled     UMBRA_MODE            profiling mode (default shadow)\n"
         "  --interval-ms N           UMBRA_INTERVAL_MS     sampling interval, 1-60000 ms (default 10)\n"
         "  -o, --output PREFIX       UMBRA_OUTPUT          report files PREFIX.json, PREFIX.txt (default ./umbra-<pid>)\n"
         "  --format LIST             UMBRA_FORMATS         json,text (default json,text)\n"
         "  --min-percent P           UMBRA_MIN_PERCENT     fold text-report nodes under P% of their thread (default 0.5)\n"
         "  --allow-inlining          UMBRA_ALLOW_INLINING=1   let the JIT inline (faster; inlined calls are not seen)\n"
         "  --max-depth N             UMBRA_MAX_DEPTH       shadow stack frames per thread (default 65536)\n"
         "  --log-level LEVEL         UMBRA_LOG_LEVEL       trace|debug|info|warn|error|critical|off (default warn)\n"
         "  -h, --help                this text\n";
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
  auto value = [&](const std::string& option) -> std::optional<std::string> {
    if (i + 1 >= args.size()) {
      result.error = option + " needs a value";
      return std::nullopt;
    }
    return args[++i];
  };
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
    if (a == "--allow-inlining") {
      run.environment.emplace_back("UMBRA_ALLOW_INLINING", "1");
    } else if (a == "--mode") {
      auto v = value(a);
      if (!v) return result;
      if (!parse_mode(*v)) {
        result.error = "--mode '" + *v + "' is not shadow or sampled";
        return result;
      }
      run.environment.emplace_back("UMBRA_MODE", *v);
    } else if (a == "--interval-ms") {
      auto v = value(a);
      if (!v) return result;
      if (!parse_unsigned(*v, 1, 60000)) {
        result.error = "--interval-ms '" + *v + "' is not a whole number from 1 to 60000";
        return result;
      }
      run.environment.emplace_back("UMBRA_INTERVAL_MS", *v);
    } else if (a == "-o" || a == "--output") {
      auto v = value(a);
      if (!v) return result;
      if (v->empty()) {
        result.error = a + " needs a non-empty prefix";
        return result;
      }
      run.environment.emplace_back("UMBRA_OUTPUT", *v);
      run.output_prefix = *v;
    } else if (a == "--format") {
      auto v = value(a);
      if (!v) return result;
      auto formats = split_list(*v);
      if (formats.empty()) {
        result.error = "--format '" + *v + "' names no format";
        return result;
      }
      for (const auto& f : formats) {
        if (!is_known_format(f)) {
          result.error = "--format: unknown format '" + f + "' (known: json, text, collapsed, speedscope, html)";
          return result;
        }
      }
      run.environment.emplace_back("UMBRA_FORMATS", *v);
    } else if (a == "--min-percent") {
      auto v = value(a);
      if (!v) return result;
      if (!parse_percent(*v)) {
        result.error = "--min-percent '" + *v + "' is not a percentage from 0 to 100";
        return result;
      }
      run.environment.emplace_back("UMBRA_MIN_PERCENT", *v);
    } else if (a == "--max-depth") {
      auto v = value(a);
      if (!v) return result;
      if (!parse_unsigned(*v, 16, 1u << 24)) {
        result.error = "--max-depth '" + *v + "' is not a whole number from 16 to 16777216";
        return result;
      }
      run.environment.emplace_back("UMBRA_MAX_DEPTH", *v);
    } else if (a == "--log-level") {
      auto v = value(a);
      if (!v) return result;
      run.environment.emplace_back("UMBRA_LOG_LEVEL", *v);
    } else if (!a.empty() && a[0] == '-') {
      result.error = "unknown option '" + a + "'";
      return result;
    } else {
      break;  // the command starts here (the `--` is optional)
    }
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
