// An environment variable set for the life of one object (a test's scope), then put back as it was.
#pragma once

#include <stdlib.h>

#include <optional>
#include <string>

namespace umbra::testing {

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* before = std::getenv(name)) before_ = before;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (before_) setenv(name_, before_->c_str(), 1);
    else unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> before_;
};

}  // namespace umbra::testing
