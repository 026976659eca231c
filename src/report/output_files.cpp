#include "report/output_files.h"

#include <unistd.h>

#include <optional>

#include "report/json_writer.h"
#include "report/html_writer.h"
#include "report/pprof_writer.h"
#include "report/runtime_folding.h"
#include "report/speedscope_writer.h"
#include "report/text_writer.h"
#include "util/private_files.h"

namespace umbra {
namespace {

// Where reports go when the prefix cannot be written: a new directory only this user can enter, made once per
// report (a predictable name in a shared /tmp could be a link planted by another user).
class Fallback {
 public:
  explicit Fallback(int64_t pid) : pid_(pid) {}
  ~Fallback() {
    if (directory_) ::rmdir(directory_->c_str());  // only if nothing could be written there
  }
  std::optional<std::string> prefix(std::string& error) {
    if (!directory_ && error_.empty()) directory_ = make_private_directory(error_);
    error = error_;
    if (!directory_) return std::nullopt;
    return *directory_ + "/umbra-" + std::to_string(pid_);
  }

 private:
  int64_t pid_;
  std::optional<std::string> directory_;
  std::string error_;
};

}  // namespace

std::string format_extension(const std::string& format) {
  if (format == "text") return ".txt";
  if (format == "speedscope") return ".speedscope.json";
  if (format == "pprof") return ".pb.gz";
  return "." + format;
}

std::string render_format(const Report& report, const std::string& format, const OutputRequest& request,
                          std::string* cut) {
  if (cut) cut->clear();
  if (format == "json") return report_to_json(report, request.work, request.json_frames);
  if (format == "text") return report_to_text(report, request.min_percent);
  if (format == "html") return report_to_html(report);
  StackCuts cuts;
  if (format == "collapsed") {
    std::string content = report_to_collapsed(report, request.collapsed, &cuts);
    if (cut) *cut = describe_cuts(format, StackLimits{}, cuts);
    return content;
  }
  if (format == "speedscope") {
    std::string title = "umbra " + report.mode + " profile of pid " + std::to_string(report.pid);
    std::string content = report_to_speedscope(report, title, &cuts);
    if (cut) *cut = describe_cuts(format, StackLimits{}, cuts);
    return content;
  }
  if (format == "pprof") {
    std::string content = report_to_pprof(report, &cuts);
    if (cut) *cut = describe_cuts(format, StackLimits{}, cuts);
    return content;
  }
  return {};
}

std::vector<std::string> write_report_files(Report& report, const OutputRequest& request,
                                            const std::function<void(const std::string&)>& warn) {
  std::vector<std::string> written;
  Fallback fallback(request.pid);
  const mode_t mode = default_file_mode();
  std::vector<std::string> formats;
  for (const auto& format : request.formats)
    if (format == "json") formats.push_back(format);
  for (const auto& format : request.formats)
    if (format != "json") formats.push_back(format);
  // What the other formats say waits while the JSON file is being written: lines and files in the formats' order.
  bool holding = false;
  std::vector<std::string> held;
  auto say = [&](const std::string& line) {
    if (holding) held.push_back(line);
    else warn(line);
  };
  // Writes `content` to the format's file, or to the fallback directory; says what went wrong.
  auto finish = [&](const std::string& format, const std::string& content, bool wrote, const std::string& error,
                    const std::string& cut) {
    std::string path = request.prefix + format_extension(format);
    std::string fallback_error;
    if (wrote) {
      written.push_back(path);
    } else if (std::optional<std::string> fallback_prefix = fallback.prefix(fallback_error);
               fallback_prefix &&
               replace_file(*fallback_prefix + format_extension(format), content, 0600, fallback_error)) {
      std::string fallback_path = *fallback_prefix + format_extension(format);
      say("cannot write '" + path + "' (" + error + "); wrote " + fallback_path + " instead");
      written.push_back(fallback_path);
    } else {
      say("cannot write '" + path + "' (" + error + ") nor a fallback in $TMPDIR (" + fallback_error +
          "); the " + format + " report is lost");
      return;
    }
    if (!cut.empty()) say(cut);
  };
  // With helpers, a large JSON file is written while the runtime's frames are folded for the other formats.
  struct WriteFile : SharedWork::Piece {
    void run(unsigned) override {
      wrote = replace_file(path, content, mode, error);
      if (wrote) std::string().swap(content);  // kept only for the fallback: no longer the largest string held
    }
    std::string path, content, error;
    mode_t mode = 0;
    bool wrote = false;
  };
  std::optional<WriteFile> json_file;
  bool folded = false;
  for (const auto& format : formats) {
    if (format != "json" && !folded && report.runtime_frames == RuntimeFrames::kFold) {
      fold_runtime_frames(report);
      folded = true;
    }
    std::string cut;
    std::string content = render_format(report, format, request, &cut);
    std::string path = request.prefix + format_extension(format);
    if (format == "json" && request.work && request.work->helpers() > 0 && formats.size() > 1 && !json_file) {
      json_file.emplace();
      json_file->path = path;
      json_file->content = std::move(content);
      json_file->mode = mode;
      request.work->offer(*json_file, 0);
      holding = true;
      continue;
    }
    std::string error;
    bool wrote = replace_file(path, content, mode, error);
    finish(format, content, wrote, error, cut);
  }
  if (json_file) {
    request.work->complete(*json_file, 0);
    holding = false;
    std::vector<std::string> others = std::move(written);
    written.clear();
    finish("json", json_file->content, json_file->wrote, json_file->error, "");
    written.insert(written.end(), others.begin(), others.end());
    for (const std::string& line : held) warn(line);
  }
  return written;
}

}  // namespace umbra
