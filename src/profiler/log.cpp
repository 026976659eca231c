#include "profiler/log.h"

#include <cstdio>
#include <memory>

#include <spdlog/sinks/stdout_sinks.h>

namespace umbra::log {
namespace {

std::shared_ptr<spdlog::logger>& logger() {
  static std::shared_ptr<spdlog::logger> instance;
  return instance;
}

}  // namespace

void init(const std::string& level) {
  auto l = std::make_shared<spdlog::logger>("umbra", std::make_shared<spdlog::sinks::stderr_sink_mt>());
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
  std::fprintf(stderr, "umbra: %s\n", line.c_str());
  std::fflush(stderr);
}

}  // namespace umbra::log
