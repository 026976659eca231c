// Writes the chosen formats of a report to <prefix>.<ext>. If the prefix cannot be written, the report goes to a
// new private directory ($TMPDIR/umbra-XXXXXX, mode 0700, files 0600) and one line says so; nothing is lost
// silently. Files are created new (never through a link or an existing file: util/private_files.h), with the mode
// the user's umask gives, and renamed into place once whole.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "report/collapsed_writer.h"
#include "report/json_writer.h"
#include "report/report.h"
#include "util/shared_work.h"

namespace umbra {

struct OutputRequest {
  std::string prefix;
  std::vector<std::string> formats;  // "json", "text", "collapsed", "speedscope", "html", "pprof"
  double min_percent = 0.5;
  int64_t pid = 0;
  CollapsedOptions collapsed;
  SharedWork* work = nullptr;  // helpers for the formats that can share writing a large report (JSON)
  FrameListing json_frames = FrameListing::kUsed;  // report/json_writer.h
};

// One format of a report, as the file's contents. `cut`, if given, receives one line on what the format left out
// (collapsed and speedscope stacks are bounded: report/bounded_stacks.h), or "" when it left out nothing.
std::string render_format(const Report& report, const std::string& format, const OutputRequest& request,
                          std::string* cut = nullptr);

// Returns the paths written. `warn` receives one line per problem: a file not written where asked (then the path
// written is not request.prefix + its extension), or what a written format left out.
// The JSON report is written first, with every frame; then, unless report.runtime_frames says to keep them, the
// runtime's frames are folded in `report` itself (report/runtime_folding.h: a report can be millions of nodes, and
// a folded copy would double them) and the other formats written from it.
std::vector<std::string> write_report_files(Report& report, const OutputRequest& request,
                                            const std::function<void(const std::string&)>& warn);

// The file extension of a format: json -> ".json", text -> ".txt", pprof -> ".pb.gz".
std::string format_extension(const std::string& format);

}  // namespace umbra
