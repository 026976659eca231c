#include "profiler/log.h"

#include <cstdio>
#include <memory>

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

namespace umbra::log {
namespace {

std::shared_ptr<spdlog::logger>& logger() {
  static std::shared_ptr<spdlog::logger> instance;
  return instance;
}

// Where always() writes; nullptr when a log file could not be opened (then nothing is said rather than harm).
FILE* g_always = stderr;

spdlog::sink_ptr file_sink(const std::string& file) {
  try {
    return std::make_shared<spdlog::sinks::basic_file_sink_mt>(file, false);
  } catch (const spdlog::spdlog_ex&) {
    return std::make_shared<spdlog::sinks::null_sink_mt>();
  }
}

}  // namespace

void init(const std::string& level, const std::string& file) {
  spdlog::sink_ptr sink;
  if (file.empty()) {
    sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  } else {
    g_always = std::fopen(file.c_str(), "ae");
    sink = file_sink(file);
  }
  auto l = std::make_shared<spdlog::logger>("umbra", std::move(sink));
  l->set_pattern("umbra: %v");
  l->set_level(spdlog::level::from_str(level));
  l->flush_on(spdlog::level::trace);
  logger() = std::move(l);
}

spdlog::logger& get() {
  if (!logger()) init("warn");
  return *logger();
}

void always(const std::string& line) {
  if (g_always == nullptr) return;
  std::fprintf(g_always, "umbra: %s\n", line.c_str());
  std::fflush(g_always);
}

}  // namespace umbra::log
