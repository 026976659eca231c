#include "profiler/process_identity.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "util/paths.h"

namespace umbra {
namespace {

// The muxer's options that come before the application and take a value (`dotnet exec --help`).
bool is_host_option_with_value(std::string_view arg) {
  for (std::string_view option : {"--additionalprobingpath", "--additional-deps", "--depsfile", "--fx-version",
                                  "--roll-forward", "--roll-forward-on-no-candidate-fx", "--runtimeconfig"})
    if (arg == option) return true;
  return false;
}

}  // namespace

std::vector<std::string> split_command_line(std::string_view cmdline) {
  std::vector<std::string> args;
  while (!cmdline.empty()) {
    size_t end = cmdline.find('\0');
    args.emplace_back(cmdline.substr(0, end));
    if (end == std::string_view::npos) break;
    cmdline.remove_prefix(end + 1);
  }
  return args;
}

std::string program_of(const std::vector<std::string>& args) {
  if (args.empty()) return "";
  std::string_view executable = file_name_of(args[0]);
  if (executable != "dotnet") return std::string(executable);
  size_t i = 1;
  if (i < args.size() && args[i] == "exec") ++i;
  while (i + 1 < args.size() && is_host_option_with_value(args[i])) i += 2;
  if (i < args.size() && std::string_view(args[i]).ends_with(".dll")) return std::string(file_name_of(args[i]));
  return std::string(executable);
}

ProcessIdentity this_process() {
  ProcessIdentity identity;
  int fd = ::open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return identity;
  std::string cmdline;
  char buffer[4096];
  while (cmdline.size() < kMaxCommandLineBytes) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    cmdline.append(buffer, size_t(n));
  }
  ::close(fd);
  if (cmdline.size() > kMaxCommandLineBytes) cmdline.resize(kMaxCommandLineBytes);
  identity.command_line = split_command_line(cmdline);
  identity.program = program_of(identity.command_line);
  return identity;
}

}  // namespace umbra
