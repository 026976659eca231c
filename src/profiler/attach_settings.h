// What `umbra attach` hands the profiler it attaches: the client data of the runtime's AttachProfiler message,
// which InitializeForAttach receives as bytes. The launcher encodes it, the library decodes it; both are here so
// that they cannot drift apart.
//
// The format is text, one setting a line, so that a person can read it in a trace of the socket:
//   umbra-attach 1
//   duration_ms=5000                   0: until stopped
//   control=/tmp/umbra-attach-Ab12Cd   the launcher's private directory (control FIFO, log, markers)
//   UMBRA_OUTPUT=/home/me/umbra-4242   any UMBRA_* variable of the option table, as `umbra run` would set it
// Values cannot hold a newline; the launcher refuses one.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace umbra {

struct AttachSettings {
  uint32_t duration_ms = 0;  // 0: until the launcher says stop (or goes away)
  std::string control_dir;
  std::map<std::string, std::string> variables;  // UMBRA_* name -> value

  bool operator==(const AttachSettings&) const = default;
};

// The control directory's entries: the launcher makes the directory and the FIFO; the library writes the rest.
inline constexpr const char* kAttachControlFifo = "control";  // the launcher writes kAttachHello, then kAttachStop
inline constexpr const char* kAttachLog = "log";              // umbra's messages (never the program's stderr)
inline constexpr const char* kAttachReported = "reported";    // made once the report is written
inline constexpr const char* kAttachDetached = "detached";    // made when the runtime has detached umbra
inline constexpr const char* kAttachStays = "stays";          // made when umbra could not detach (the log says why)
inline constexpr char kAttachHello = 'h';
inline constexpr char kAttachStop = 's';

// The bytes of the client data; nothing if a value holds a newline (the reason in `error`).
std::optional<std::string> encode_attach_settings(const AttachSettings& settings, std::string& error);
// Nothing, with the reason in `error`, if `data` is not settings this version understands.
std::optional<AttachSettings> decode_attach_settings(std::string_view data, std::string& error);

}  // namespace umbra
