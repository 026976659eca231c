#include "report/output_files.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "report/json_writer.h"
#include "report/html_writer.h"
#include "report/speedscope_writer.h"
#include "report/text_writer.h"

namespace umbra {
namespace {

// Writes to a temporary file beside `path`, then renames it: a reader (or a process ending mid-write) never sees
// a half-written report.
bool write_file(const std::string& path, const std::string& content, std::string& error) {
  std::string temporary = path + ".tmp";
  FILE* f = std::fopen(temporary.c_str(), "w");
  if (!f) {
    error = std::strerror(errno);
    return false;
  }
  bool ok = std::fwrite(content.data(), 1, content.size(), f) == content.size();
  int saved = errno;
  if (std::fclose(f) != 0 && ok) {
    ok = false;
    saved = errno;
  }
  if (ok && std::rename(temporary.c_str(), path.c_str()) != 0) {
    ok = false;
    saved = errno;
  }
  if (!ok) {
    error = std::strerror(saved);
    std::remove(temporary.c_str());
  }
  return ok;
}

std::string fallback_prefix(int64_t pid) {
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = tmp && *tmp ? tmp : "/tmp";
  return dir + "/umbra-" + std::to_string(pid);
}

}  // namespace

std::string format_extension(const std::string& format) {
  if (format == "text") return ".txt";
  if (format == "speedscope") return ".speedscope.json";
  return "." + format;
}

std::string render_format(const Report& report, const std::string& format, const OutputRequest& request) {
  if (format == "json") return report_to_json(report);
  if (format == "text") return report_to_text(report, request.min_percent);
  if (format == "collapsed") return report_to_collapsed(report, request.collapsed);
  if (format == "html") return report_to_html(report);
  if (format == "speedscope") return report_to_speedscope(report, "umbra " + report.mode + " profile of pid " + std::to_string(report.pid));
  return {};
}

std::vector<std::string> write_report_files(const Report& report, const OutputRequest& request,
                                            const std::function<void(const std::string&)>& warn) {
  std::vector<std::string> written;
  for (const auto& format : request.formats) {
    std::string content = render_format(report, format, request);
    std::string path = request.prefix + format_extension(format);
    std::string error;
    if (write_file(path, content, error)) {
      written.push_back(path);
      continue;
    }
    std::string fallback = fallback_prefix(request.pid) + format_extension(format);
    std::string fallback_error;
    if (fallback != path && write_file(fallback, content, fallback_error)) {
      warn("cannot write '" + path + "' (" + error + "); wrote " + fallback + " instead");
      written.push_back(fallback);
    } else {
      warn("cannot write '" + path + "' (" + error + ") nor '" + fallback + "' (" + fallback_error +
           "); the " + format + " report is lost");
    }
  }
  return written;
}

}  // namespace umbra
