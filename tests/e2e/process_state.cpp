#include "process_state.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <sstream>

#include "e2e_env.h"

namespace umbra::testing {
namespace {

// The value of `key:` in a /proc status file, or "?".
std::string status_field(const std::string& status, const std::string& key) {
  size_t at = status.find("\n" + key + ":");
  if (at == std::string::npos) return "?";
  size_t start = status.find_first_not_of(" \t", at + key.size() + 2);
  return status.substr(start, status.find('\n', start) - start);
}

}  // namespace

bool http_get_succeeds(const std::string& base_url, const std::string& path, int timeout_ms) {
  const std::string scheme = "http://";
  if (base_url.rfind(scheme, 0) != 0) return false;
  std::string host_port = base_url.substr(scheme.size());
  size_t colon = host_port.rfind(':');
  if (colon == std::string::npos) return false;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(uint16_t(std::stoi(host_port.substr(colon + 1))));
  if (inet_pton(AF_INET, host_port.substr(0, colon).c_str(), &address.sin_addr) != 1) return false;
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  std::string answer;
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
    std::string request = "GET " + path + " HTTP/1.1\r\nHost: " + host_port + "\r\nConnection: close\r\n\r\n";
    if (write(fd, request.data(), request.size()) == ssize_t(request.size())) {
      for (;;) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        pollfd ready{fd, POLLIN, 0};
        if (left.count() <= 0 || poll(&ready, 1, int(left.count())) <= 0) break;
        char bytes[4096];
        ssize_t n = read(fd, bytes, sizeof bytes);
        if (n <= 0) break;
        answer.append(bytes, size_t(n));
      }
    }
  }
  close(fd);
  return answer.rfind("HTTP/1.1 200", 0) == 0;
}

std::string describe_threads(pid_t pid) {
  std::ostringstream out;
  std::error_code error;
  const std::string task_dir = "/proc/" + std::to_string(pid) + "/task";
  for (const auto& task : std::filesystem::directory_iterator(task_dir, error)) {
    const std::string dir = task.path().string();
    std::string status = "\n" + read_file(dir + "/status");
    out << task.path().filename().string() << ' ' << status_field(status, "Name") << " state "
        << status_field(status, "State") << " wchan " << read_file(dir + "/wchan") << " SigPnd "
        << status_field(status, "SigPnd") << " ShdPnd " << status_field(status, "ShdPnd") << " SigBlk "
        << status_field(status, "SigBlk") << '\n';
  }
  return out.str();
}

std::string describe_children(const std::string& needle) {
  std::string described;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string status = read_file(entry.path() / "status");
    std::string command_line = read_file(entry.path() / "cmdline");
    for (char& c : command_line)
      if (c == '\0') c = ' ';
    if (status_field(status, "PPid") != std::to_string(getpid()) || command_line.find(needle) == std::string::npos)
      continue;
    described += "pid " + name + ": " + command_line + "\n" + describe_threads(pid_t(std::stol(name)));
  }
  return described.empty() ? "no child of the test runs " + needle + "\n" : described;
}

}  // namespace umbra::testing
