// umbra's log: spdlog to stderr, every line prefixed "umbra:". For start-up, configuration, errors and the closing
// summary only; never called from the hooks.
#pragma once

#include <string>

#include <spdlog/spdlog.h>

namespace umbra::log {

// Creates the logger at `level` (a spdlog level name), writing to stderr, or to `file` when one is given: a process
// the profiled program started must not write to a stderr its parent may be reading (MSBuild fails a compile
// whose compiler writes anything there).
void init(const std::string& level, const std::string& file = "");
spdlog::logger& get();
// Closes the file init opened, if any; later messages are dropped until the next init. For an attached session's
// end: umbra is about to leave a process whose stderr is not its own.
void close();

// A line the user must see whatever the level: configuration problems, where the report went.
void always(const std::string& line);

template <typename... Args>
void info(spdlog::format_string_t<Args...> fmt, Args&&... args) {
  get().info(fmt, std::forward<Args>(args)...);
}
template <typename... Args>
void debug(spdlog::format_string_t<Args...> fmt, Args&&... args) {
  get().debug(fmt, std::forward<Args>(args)...);
}
template <typename... Args>
void error(spdlog::format_string_t<Args...> fmt, Args&&... args) {
  get().error(fmt, std::forward<Args>(args)...);
}

}  // namespace umbra::log
