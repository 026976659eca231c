#include "profiler/attach_settings.h"

#include <charconv>

namespace umbra {
namespace {

constexpr std::string_view kHeader = "umbra-attach 1";

bool is_variable_name(std::string_view name) {
  if (name.rfind("UMBRA_", 0) != 0 || name.size() == 6) return false;
  for (char c : name)
    if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

}  // namespace

std::optional<std::string> encode_attach_settings(const AttachSettings& settings, std::string& error) {
  std::string out = std::string(kHeader) + "\n";
  auto add = [&](const std::string& name, const std::string& value) {
    if (value.find('\n') != std::string::npos || value.find('\0') != std::string::npos) {
      error = name + " holds a newline or NUL character, which attach cannot pass on";
      return false;
    }
    out += name + "=" + value + "\n";
    return true;
  };
  if (!add("duration_ms", std::to_string(settings.duration_ms)) || !add("control", settings.control_dir))
    return std::nullopt;
  for (const auto& [name, value] : settings.variables) {
    if (!is_variable_name(name)) {
      error = "'" + name + "' is not an UMBRA_ variable";
      return std::nullopt;
    }
    if (!add(name, value)) return std::nullopt;
  }
  return out;
}

std::optional<AttachSettings> decode_attach_settings(std::string_view data, std::string& error) {
  AttachSettings settings;
  bool header = false, duration = false;
  size_t line_number = 0;
  while (!data.empty()) {
    size_t end = data.find('\n');
    if (end == std::string_view::npos) {
      error = "the settings do not end with a newline";
      return std::nullopt;
    }
    std::string_view line = data.substr(0, end);
    data.remove_prefix(end + 1);
    ++line_number;
    if (!header) {
      if (line != kHeader) {
        error = "the settings do not start with '" + std::string(kHeader) + "'";
        return std::nullopt;
      }
      header = true;
      continue;
    }
    size_t equals = line.find('=');
    std::string_view name = line.substr(0, equals), value = line.substr(equals == line.npos ? line.size() : equals + 1);
    if (equals == std::string_view::npos || name.empty()) {
      error = "line " + std::to_string(line_number) + " is not NAME=VALUE";
      return std::nullopt;
    }
    if (name == "duration_ms") {
      auto [end_of_number, ec] = std::from_chars(value.data(), value.data() + value.size(), settings.duration_ms);
      if (ec != std::errc() || end_of_number != value.data() + value.size()) {
        error = "duration_ms '" + std::string(value) + "' is not a whole number of milliseconds";
        return std::nullopt;
      }
      duration = true;
    } else if (name == "control") {
      settings.control_dir = value;
    } else if (is_variable_name(name)) {
      settings.variables[std::string(name)] = value;
    } else {
      error = "line " + std::to_string(line_number) + " sets '" + std::string(name) + "', which umbra does not know";
      return std::nullopt;
    }
  }
  if (!header || !duration || settings.control_dir.empty() || settings.control_dir[0] != '/') {
    error = header ? "the settings lack duration_ms or an absolute control directory"
                   : "the settings do not start with '" + std::string(kHeader) + "'";
    return std::nullopt;
  }
  return settings;
}

}  // namespace umbra
