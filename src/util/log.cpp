#include "util/log.h"

#include <unistd.h>

#include <cstdio>
#include <memory>
#include <mutex>

#include <spdlog/logger.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

#include "util/private_files.h"

namespace umbra::log {
namespace {

std::shared_ptr<spdlog::logger>& logger() {
  static std::shared_ptr<spdlog::logger> instance;
  return instance;
}

// Where always() writes; nullptr when a log file could not be opened (then nothing is said rather than harm).
FILE* g_always = stderr;

// spdlog's own file sink opens by name (following links); this one writes to a file opened safely.
class OpenFileSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit OpenFileSink(FILE* file) : file_(file) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t formatted;
    formatter_->format(msg, formatted);
    std::fwrite(formatted.data(), 1, formatted.size(), file_);
  }
  void flush_() override { std::fflush(file_); }

 private:
  FILE* file_;
};

// The log file of a process the program started: created new, or an earlier log of this user appended to; a link
// or another user's file at that name is not used, and the log goes to a new private directory instead.
FILE* open_log(const std::string& file) {
  std::string error;
  int fd = open_log_file(file, error);
  if (fd < 0) {
    if (auto directory = make_private_directory(error))
      fd = open_log_file(*directory + "/umbra-" + std::to_string(::getpid()) + ".log", error);
  }
  FILE* f = fd >= 0 ? ::fdopen(fd, "a") : nullptr;
  if (f == nullptr && fd >= 0) ::close(fd);
  return f;
}

std::shared_ptr<spdlog::logger> make_logger(spdlog::sink_ptr sink, spdlog::level::level_enum level) {
  auto l = std::make_shared<spdlog::logger>("umbra", std::move(sink));
  l->set_pattern("umbra: %v");
  l->set_level(level);
  l->flush_on(spdlog::level::trace);
  return l;
}

}  // namespace

void init(const std::string& level, const std::string& file) {
  spdlog::sink_ptr sink;
  if (file.empty()) {
    g_always = stderr;
    sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  } else {
    g_always = open_log(file);
    if (g_always) sink = std::make_shared<OpenFileSink>(g_always);
    else sink = std::make_shared<spdlog::sinks::null_sink_mt>();
  }
  logger() = make_logger(std::move(sink), spdlog::level::from_str(level));
}

int file_descriptor() { return g_always != nullptr && g_always != stderr ? ::fileno_unlocked(g_always) : -1; }

void restart_on(int fd) {
  spdlog::level::level_enum level = logger() ? logger()->level() : spdlog::level::warn;
  // The old logger and file are left as they are: freeing them could wait on a lock no thread of this copy holds.
  static_cast<void>(new std::shared_ptr<spdlog::logger>(std::move(logger())));
  g_always = fd >= 0 ? ::fdopen(fd, "a") : nullptr;
  spdlog::sink_ptr sink;
  if (g_always) sink = std::make_shared<OpenFileSink>(g_always);
  else sink = std::make_shared<spdlog::sinks::null_sink_mt>();
  logger() = make_logger(std::move(sink), level);
}

void close() {
  auto quiet = std::make_shared<spdlog::logger>("umbra", std::make_shared<spdlog::sinks::null_sink_mt>());
  logger() = std::move(quiet);  // the file sink below is gone with the logger it belonged to
  if (g_always != nullptr && g_always != stderr) std::fclose(g_always);
  g_always = nullptr;
}

namespace {

spdlog::logger& get() {
  if (!logger()) init("warn");
  return *logger();
}

spdlog::level::level_enum spdlog_level(Level level) {
  switch (level) {
    case Level::debug: return spdlog::level::debug;
    case Level::info: return spdlog::level::info;
    case Level::error: return spdlog::level::err;
  }
  return spdlog::level::err;
}

}  // namespace

bool enabled(Level level) { return get().should_log(spdlog_level(level)); }

void write(Level level, std::string_view line) { get().log(spdlog_level(level), spdlog::string_view_t(line)); }

void always(const std::string& line) {
  if (g_always == nullptr) return;
  std::fprintf(g_always, "umbra: %s\n", line.c_str());
  std::fflush(g_always);
}

}  // namespace umbra::log
