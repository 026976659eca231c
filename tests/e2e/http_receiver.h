// A small HTTP server on 127.0.0.1 for the push tests, standing in for Grafana Pyroscope: it records every request
// whole and answers 200, or never answers at all (a server too slow).
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace umbra::testing {

struct HttpRequest {
  std::string method, target;                  // "POST", "/ingest?name=..."
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;
  // The query's parameters, percent-decoded.
  std::map<std::string, std::string> query() const;
  // The path before the query.
  std::string path() const;
  // The content of a multipart/form-data field, or nothing.
  std::optional<std::string> form_field(const std::string& name) const;
};

class HttpReceiver {
 public:
  enum class Answer { kOk, kNever };
  explicit HttpReceiver(Answer answer);
  ~HttpReceiver();
  HttpReceiver(const HttpReceiver&) = delete;
  HttpReceiver& operator=(const HttpReceiver&) = delete;

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<HttpRequest> requests() const;
  // Connections accepted, answered or not.
  size_t connections() const;

  // A URL where nothing listens: its port was just taken and given back (connection refused).
  static std::string refusing_url();

 private:
  void run();
  const Answer answer_;
  int listener_ = -1;
  int stop_[2] = {-1, -1};
  int port_ = 0;
  mutable std::mutex mutex_;
  std::vector<HttpRequest> requests_;
  std::vector<int> held_;  // connections never answered, closed at the end
  size_t connections_ = 0;
  std::thread thread_;
};

}  // namespace umbra::testing
