#include "diagnostics_ipc.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "util/utf8.h"

namespace umbra::launcher {
namespace {

constexpr char kMagic[14] = {'D', 'O', 'T', 'N', 'E', 'T', '_', 'I', 'P', 'C', '_', 'V', '1', '\0'};
constexpr size_t kHeaderSize = 20;
constexpr uint8_t kProfilerCommandSet = 0x03;
constexpr uint8_t kAttachProfilerCommand = 0x01;
constexpr uint8_t kServerCommandSet = 0xFF;
constexpr uint8_t kServerOk = 0x00;
constexpr uint8_t kServerError = 0xFF;

void put16(std::vector<uint8_t>& out, uint16_t v) {
  out.push_back(uint8_t(v));
  out.push_back(uint8_t(v >> 8));
}

void put32(std::vector<uint8_t>& out, uint32_t v) {
  for (int shift = 0; shift < 32; shift += 8) out.push_back(uint8_t(v >> shift));
}

uint32_t get32(const std::vector<uint8_t>& in, size_t at) {
  return uint32_t(in[at]) | uint32_t(in[at + 1]) << 8 | uint32_t(in[at + 2]) << 16 | uint32_t(in[at + 3]) << 24;
}

// Waits until `fd` is ready for `events` or the deadline passes (ETIMEDOUT).
bool wait_for(int fd, short events, std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      errno = ETIMEDOUT;
      return false;
    }
    pollfd p{fd, events, 0};
    int n = poll(&p, 1, int(left.count()));
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return false;
  }
}

}  // namespace

std::optional<std::vector<uint8_t>> attach_profiler_message(const clr::CLSID& clsid, const std::string& library_path,
                                                            const std::string& client_data,
                                                            uint32_t attach_timeout_ms, std::string& error) {
  std::optional<std::u16string> path = utf8_to_utf16(library_path);
  if (!path) {
    error = "the library's path '" + library_path + "' is not UTF-8";
    return std::nullopt;
  }
  std::vector<uint8_t> out(kMagic, kMagic + sizeof kMagic);
  put16(out, 0);  // the size, once known
  out.push_back(kProfilerCommandSet);
  out.push_back(kAttachProfilerCommand);
  put16(out, 0);
  put32(out, attach_timeout_ms);
  put32(out, clsid.data1);
  put16(out, clsid.data2);
  put16(out, clsid.data3);
  out.insert(out.end(), clsid.data4, clsid.data4 + 8);
  put32(out, uint32_t(path->size() + 1));
  for (char16_t unit : *path) put16(out, uint16_t(unit));
  put16(out, 0);
  put32(out, uint32_t(client_data.size()));
  out.insert(out.end(), client_data.begin(), client_data.end());
  if (out.size() > 0xFFFF) {
    error = "the attach message would be " + std::to_string(out.size()) + " bytes, more than the 65535 it may have";
    return std::nullopt;
  }
  out[14] = uint8_t(out.size());
  out[15] = uint8_t(out.size() >> 8);
  return out;
}

std::optional<IpcReply> parse_ipc_reply(const std::vector<uint8_t>& bytes) {
  if (bytes.size() < kHeaderSize + 4 || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) return std::nullopt;
  size_t size = size_t(bytes[14]) | size_t(bytes[15]) << 8;
  if (size < kHeaderSize + 4 || size > bytes.size() || bytes[16] != kServerCommandSet) return std::nullopt;
  if (bytes[17] != kServerOk && bytes[17] != kServerError) return std::nullopt;
  return IpcReply{bytes[17] == kServerOk, get32(bytes, kHeaderSize)};
}

std::optional<IpcReply> send_ipc_message(const std::string& socket_path, const std::vector<uint8_t>& message,
                                         const PeerCheck& peer, int timeout_ms, int& error_number, std::string& error) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  auto fail = [&](const std::string& what) -> std::optional<IpcReply> {
    error_number = errno;
    error = what + ": " + std::strerror(errno);
    return std::nullopt;
  };
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (socket_path.size() >= sizeof address.sun_path) {
    errno = ENAMETOOLONG;
    return fail("cannot connect to " + socket_path);
  }
  std::memcpy(address.sun_path, socket_path.c_str(), socket_path.size() + 1);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return fail("cannot make a socket");
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0)
    return fail("cannot connect to " + socket_path);
  ucred listener{};
  socklen_t size = sizeof listener;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &listener, &size) != 0)
    return fail("cannot learn who listens on " + socket_path);
  if (listener.pid != peer.pid || listener.uid != peer.uid) {
    errno = EPERM;
    error_number = 0;
    error = socket_path + " is not the program's: pid " + std::to_string(listener.pid) + " (uid " +
            std::to_string(listener.uid) + ") listens on it, not pid " + std::to_string(peer.pid) + " (uid " +
            std::to_string(peer.uid) + "); nothing was sent to it";
    return std::nullopt;
  }
  for (size_t sent = 0; sent < message.size();) {
    if (!wait_for(fd, POLLOUT, deadline)) return fail("cannot send the attach request");
    ssize_t n = send(fd, message.data() + sent, message.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno != EINTR && errno != EAGAIN) return fail("cannot send the attach request");
    if (n > 0) sent += size_t(n);
  }
  // The header first: it says how long the whole answer is.
  std::vector<uint8_t> reply;
  size_t wanted = kHeaderSize;
  while (reply.size() < wanted) {
    if (!wait_for(fd, POLLIN, deadline)) return fail("no answer from the runtime");
    uint8_t buffer[256];
    ssize_t n = recv(fd, buffer, std::min(sizeof buffer, wanted - reply.size()), MSG_DONTWAIT);
    if (n == 0) {
      errno = ECONNRESET;
      return fail("the runtime closed the connection without an answer");
    }
    if (n < 0 && errno != EINTR && errno != EAGAIN) return fail("cannot read the runtime's answer");
    if (n > 0) reply.insert(reply.end(), buffer, buffer + n);
    if (reply.size() == kHeaderSize) wanted = std::max(kHeaderSize, size_t(reply[14]) | size_t(reply[15]) << 8);
  }
  std::optional<IpcReply> parsed = parse_ipc_reply(reply);
  if (!parsed) {
    error_number = 0;
    error = "the runtime's answer is not one this launcher understands";
  }
  return parsed;
}

std::string hresult_name(uint32_t hresult) {
  switch (hresult) {
    case 0x8013136A: return "CORPROF_E_PROFILER_ALREADY_ACTIVE";
    case 0x80131367: return "CORPROF_E_PROFILER_DETACHING";
    case 0x80131368: return "CORPROF_E_PROFILER_NOT_ATTACHABLE";
    case 0x80131375: return "CORPROF_E_PROFILER_CANCEL_ACTIVATION";
    case 0x80131371: return "CORPROF_E_RUNTIME_UNINITIALIZED";
    case 0x8013135B: return "DS_IPC_E_NOT_YET_AVAILABLE";
    case 0x80131384: return "DS_IPC_E_BAD_ENCODING";
    case 0x80131385: return "DS_IPC_E_UNKNOWN_COMMAND";
    case 0x80131386: return "DS_IPC_E_UNKNOWN_MAGIC";
    case 0x80131515: return "DS_IPC_E_NOTSUPPORTED";
    case 0x80070057: return "E_INVALIDARG";
    case 0x80070005: return "E_ACCESSDENIED";
    case 0x80004005: return "E_FAIL";
    case 0x8007007E: return "ERROR_MOD_NOT_FOUND";
    default: return "";
  }
}

}  // namespace umbra::launcher
