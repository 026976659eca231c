// What a saved report says about the process it profiled, read from the start of its JSON file alone: the
// launcher names each process of a run by it, and a report of millions of nodes is not read for that.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace umbra {

struct ReportHeader {
  int64_t pid = 0;
  std::string program;
  std::vector<std::string> command_line;
  std::string runtime;
  std::string umbra_version;
};

// The document's members before its first large one ("node_fields", "frames", "threads", "stats"), reading at
// most kMaxReportHeaderBytes of the file; nothing when the file cannot be read, is a link or anything but a
// regular file (it is opened without following links or waiting on a FIFO), or does not start as an umbra report
// (its "schema" first).
std::optional<ReportHeader> read_report_header(const std::string& json_path);
// A command line kept in full (profiler/process_identity.h: 1 MiB) takes at most 6 bytes a byte once escaped.
inline constexpr size_t kMaxReportHeaderBytes = size_t(8) << 20;

}  // namespace umbra
