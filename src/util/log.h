// umbra's log: spdlog to stderr, every line prefixed "umbra:"; spdlog is compiled into log.cpp from its headers, so
// that the profiler has one shared library less to load at start-up. For start-up, configuration, errors and the
// closing summary only; never called from the hooks.
#pragma once

#include <string>
#include <string_view>

#include <fmt/format.h>

namespace umbra::log {

// Creates the logger at `level` (a spdlog level name), writing to stderr, or to `file` when one is given: a process
// the profiled program started must not write to a stderr its parent may be reading (MSBuild fails a compile
// whose compiler writes anything there).
void init(const std::string& level, const std::string& file = "");
// Closes the file init opened, if any; later messages are dropped until the next init. For an attached session's
// end: umbra is about to leave a process whose stderr is not its own.
void close();

// The log file's descriptor, or -1 when the log is stderr or nothing.
int file_descriptor();
// In a copy of the process that goes on alone (profiler/report_writer_process.h): a new logger at the same level on
// `fd`, the log file's descriptor (-1: nothing is said). Nothing of the old one is used again: a thread the copy
// does not have may have held its locks.
void restart_on(int fd);

// A line the user must see whatever the level: configuration problems, where the report went.
void always(const std::string& line);

enum class Level { debug, info, error };
// Whether a line at `level` is written: its arguments are formatted only then.
bool enabled(Level level);
void write(Level level, std::string_view line);

template <typename... Args>
void info(fmt::format_string<Args...> format, Args&&... args) {
  if (enabled(Level::info)) write(Level::info, fmt::format(format, std::forward<Args>(args)...));
}
template <typename... Args>
void debug(fmt::format_string<Args...> format, Args&&... args) {
  if (enabled(Level::debug)) write(Level::debug, fmt::format(format, std::forward<Args>(args)...));
}
template <typename... Args>
void error(fmt::format_string<Args...> format, Args&&... args) {
  if (enabled(Level::error)) write(Level::error, fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace umbra::log
