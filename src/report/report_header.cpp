#include "report/report_header.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rapidjson/filereadstream.h>
#include <rapidjson/reader.h>

#include <cstdio>
#include <memory>
#include <string_view>

#include "report/report.h"

namespace umbra {
namespace {

// RapidJSON's events; returning false stops the parse, which is how it stops at the first large member.
class HeaderHandler : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, HeaderHandler> {
 public:
  HeaderHandler(const rapidjson::FileReadStream& stream, ReportHeader& header) : stream_(stream), header_(header) {}

  bool schema_seen() const { return schema_seen_; }

  bool StartObject() { return open(); }
  bool StartArray() {
    in_command_line_ = depth_ == 1 && key_ == "command_line";
    return open();
  }
  bool EndObject(rapidjson::SizeType) { return close(); }
  bool EndArray(rapidjson::SizeType) {
    in_command_line_ = false;
    return close();
  }
  bool Key(const char* s, rapidjson::SizeType n, bool) {
    if (depth_ != 1) return within_bound();
    key_.assign(s, n);
    if (!schema_seen_ && key_ != "schema") return false;
    for (std::string_view large : {"node_fields", "frames", "threads", "stats"})
      if (key_ == large) return false;
    return within_bound();
  }
  bool String(const char* s, rapidjson::SizeType n, bool) {
    std::string value(s, n);
    if (in_command_line_ && depth_ == 2) header_.command_line.push_back(std::move(value));
    else if (depth_ != 1) return within_bound();
    else if (key_ == "schema")
      schema_seen_ = node_layout_of(value).width > 0 || value == kReportSchemaV1;
    else if (key_ == "program") header_.program = std::move(value);
    else if (key_ == "runtime") header_.runtime = std::move(value);
    else if (key_ == "umbra_version") header_.umbra_version = std::move(value);
    return schema_seen_ && within_bound();
  }
  bool Int(int v) { return number(v); }
  bool Uint(unsigned v) { return number(v); }
  bool Int64(int64_t v) { return number(v); }
  bool Uint64(uint64_t v) { return number(int64_t(v)); }
  bool Default() { return within_bound(); }

 private:
  bool open() {
    ++depth_;
    return within_bound();
  }
  bool close() {
    --depth_;
    return within_bound();
  }
  bool number(int64_t v) {
    if (depth_ == 1 && key_ == "pid") header_.pid = v;
    return within_bound();
  }
  bool within_bound() const { return stream_.Tell() <= kMaxReportHeaderBytes; }

  const rapidjson::FileReadStream& stream_;
  ReportHeader& header_;
  int depth_ = 0;
  std::string key_;
  bool in_command_line_ = false;
  bool schema_seen_ = false;
};

}  // namespace

std::optional<ReportHeader> read_report_header(const std::string& json_path) {
  // Beside the reports, in a directory others may write to, a link or a FIFO may stand under a report's name.
  int fd = open(json_path.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  struct stat st {};
  if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    if (fd >= 0) close(fd);
    return std::nullopt;
  }
  std::unique_ptr<FILE, int (*)(FILE*)> file(fdopen(fd, "rb"), &std::fclose);
  if (!file) {
    close(fd);
    return std::nullopt;
  }
  char buffer[65536];
  rapidjson::FileReadStream stream(file.get(), buffer, sizeof buffer);
  ReportHeader header;
  HeaderHandler handler(stream, header);
  rapidjson::Reader reader;
  reader.Parse<rapidjson::kParseIterativeFlag>(stream, handler);
  if (!handler.schema_seen()) return std::nullopt;
  return header;
}

}  // namespace umbra
