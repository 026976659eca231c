// The part of the .NET runtime's diagnostics IPC protocol that attaching a profiler needs, over the Unix socket
// each runtime listens on ($TMPDIR/dotnet-diagnostic-{pid}-{key}-socket, see attach_target.h).
//
// A message is a 20-byte header, "DOTNET_IPC_V1\0", a little-endian uint16 total size (header included), a command
// set and a command id (one byte each) and two reserved bytes, then the payload. AttachProfiler is command set 0x03,
// id 0x01; its payload: uint32 attach timeout in ms, the profiler's CLSID (16 bytes, laid out as .NET's
// Guid.ToByteArray: Data1, Data2, Data3 little-endian, then Data4), the library path (uint32 count of UTF-16 units
// including the terminating NUL, then UTF-16LE), and the client data (uint32 size, then the bytes). The runtime
// answers once the profiler's InitializeForAttach has returned: command set 0xFF, id 0x00 (OK) or 0xFF (error),
// payload an int32 HRESULT.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "clr/pal.h"

namespace umbra::launcher {

// The whole AttachProfiler message; nothing, with the reason in `error`, if the path is not UTF-8 or the message
// would not fit its 16-bit size.
std::optional<std::vector<uint8_t>> attach_profiler_message(const clr::CLSID& clsid, const std::string& library_path,
                                                            const std::string& client_data,
                                                            uint32_t attach_timeout_ms, std::string& error);

struct IpcReply {
  bool ok = false;       // command id 0x00
  uint32_t hresult = 0;  // the profiler's or the runtime's
};
// The runtime's answer read from `bytes`; nothing if they are not a whole answer.
std::optional<IpcReply> parse_ipc_reply(const std::vector<uint8_t>& bytes);

// Who must be listening on the socket: the program's runtime. The socket's name can be taken by another local user
// before the runtime makes it, and the settings sent carry secrets (a push URL's password).
struct PeerCheck {
  pid_t pid = 0;
  uid_t uid = 0;
};

// Connects to `socket_path`, checks that `peer` listens on it (SO_PEERCRED) before anything is sent, sends `message`, reads the answer (waiting at most `timeout_ms`). On failure, nothing,
// with errno's value in `error_number` (0 if the runtime answered something that is not an answer) and what failed
// in `error`.
std::optional<IpcReply> send_ipc_message(const std::string& socket_path, const std::vector<uint8_t>& message,
                                         const PeerCheck& peer, int timeout_ms, int& error_number, std::string& error);

// "CORPROF_E_PROFILER_ALREADY_ACTIVE" for the HRESULTs an attach can get back, "" for others.
std::string hresult_name(uint32_t hresult);

}  // namespace umbra::launcher
