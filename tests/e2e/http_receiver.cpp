#include "http_receiver.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace umbra::testing {
namespace {

std::string lower(std::string text) {
  for (char& c : text) c = char(std::tolower((unsigned char)c));
  return text;
}

std::string percent_decoded(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      out += char(std::strtol(text.substr(i + 1, 2).c_str(), nullptr, 16));
      i += 2;
    } else {
      out += text[i] == '+' ? ' ' : text[i];
    }
  }
  return out;
}

int listen_on_loopback(int& port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || listen(fd, 16) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0)
    return -1;
  port = ntohs(address.sin_port);
  return fd;
}

// One request from `fd`: headers to the blank line, then Content-Length bytes of body. Nothing if it ends early.
std::optional<HttpRequest> read_request(int fd) {
  std::string data;
  char buffer[65536];
  size_t header_end;
  while ((header_end = data.find("\r\n\r\n")) == std::string::npos) {
    ssize_t n = read(fd, buffer, sizeof buffer);
    if (n <= 0) return std::nullopt;
    data.append(buffer, size_t(n));
  }
  HttpRequest request;
  std::string head = data.substr(0, header_end);
  size_t line_end = head.find("\r\n");
  std::string first = head.substr(0, line_end);
  request.method = first.substr(0, first.find(' '));
  request.target = first.substr(first.find(' ') + 1, first.rfind(' ') - first.find(' ') - 1);
  for (size_t at = line_end + 2; at < head.size() && line_end != std::string::npos;) {
    size_t end = std::min(head.find("\r\n", at), head.size());
    std::string line = head.substr(at, end - at);
    size_t colon = line.find(':');
    if (colon != std::string::npos)
      request.headers[lower(line.substr(0, colon))] = line.substr(line.find_first_not_of(' ', colon + 1));
    at = end + 2;
  }
  size_t length = std::strtoul(request.headers["content-length"].c_str(), nullptr, 10);
  request.body = data.substr(header_end + 4);
  while (request.body.size() < length) {
    ssize_t n = read(fd, buffer, sizeof buffer);
    if (n <= 0) return std::nullopt;
    request.body.append(buffer, size_t(n));
  }
  return request;
}

}  // namespace

std::map<std::string, std::string> HttpRequest::query() const {
  std::map<std::string, std::string> parameters;
  size_t question = target.find('?');
  if (question == std::string::npos) return parameters;
  std::string text = target.substr(question + 1);
  for (size_t at = 0; at <= text.size();) {
    size_t end = std::min(text.find('&', at), text.size());
    std::string item = text.substr(at, end - at);
    size_t equals = item.find('=');
    if (equals != std::string::npos) parameters[percent_decoded(item.substr(0, equals))] = percent_decoded(item.substr(equals + 1));
    at = end + 1;
  }
  return parameters;
}

std::string HttpRequest::path() const { return target.substr(0, target.find('?')); }

std::optional<std::string> HttpRequest::form_field(const std::string& name) const {
  auto type = headers.find("content-type");
  if (type == headers.end() || type->second.rfind("multipart/form-data", 0) != 0) return std::nullopt;
  size_t b = type->second.find("boundary=");
  if (b == std::string::npos) return std::nullopt;
  std::string boundary = "--" + type->second.substr(b + 9);
  for (size_t at = body.find(boundary); at != std::string::npos;) {
    size_t part = at + boundary.size() + 2;  // past the boundary's CRLF
    size_t next = body.find("\r\n" + boundary, part);
    if (next == std::string::npos) break;
    size_t blank = body.find("\r\n\r\n", part);
    if (blank != std::string::npos && blank < next) {
      std::string part_headers = body.substr(part, blank - part);
      if (part_headers.find("name=\"" + name + "\"") != std::string::npos) return body.substr(blank + 4, next - blank - 4);
    }
    at = next + 2;
  }
  return std::nullopt;
}

HttpReceiver::HttpReceiver(Answer answer) : answer_(answer) {
  listener_ = listen_on_loopback(port_);
  if (pipe2(stop_, O_CLOEXEC) != 0) return;
  thread_ = std::thread([this] { run(); });
}

HttpReceiver::~HttpReceiver() {
  if (stop_[1] >= 0) {
    char byte = 0;
    ssize_t ignored = write(stop_[1], &byte, 1);
    (void)ignored;
  }
  if (thread_.joinable()) thread_.join();
  for (int fd : {listener_, stop_[0], stop_[1]})
    if (fd >= 0) close(fd);
  for (int fd : held_) close(fd);
}

void HttpReceiver::run() {
  for (;;) {
    pollfd fds[2] = {{listener_, POLLIN, 0}, {stop_[0], POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) continue;
    if (fds[1].revents & POLLIN) return;
    int connection = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (connection < 0) continue;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++connections_;
    }
    if (answer_ == Answer::kNever) {
      std::lock_guard<std::mutex> lock(mutex_);
      held_.push_back(connection);  // read nothing, answer nothing: the client's timeout must end it
      continue;
    }
    std::optional<HttpRequest> request = read_request(connection);
    if (request) {
      const char kOk[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";
      ssize_t ignored = write(connection, kOk, sizeof kOk - 1);
      (void)ignored;
      std::lock_guard<std::mutex> lock(mutex_);
      requests_.push_back(std::move(*request));
    }
    close(connection);
  }
}

std::vector<HttpRequest> HttpReceiver::requests() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return requests_;
}

size_t HttpReceiver::connections() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return connections_;
}

std::string HttpReceiver::refusing_url() {
  int port = 0;
  int fd = listen_on_loopback(port);
  close(fd);
  return "http://127.0.0.1:" + std::to_string(port);
}

}  // namespace umbra::testing
