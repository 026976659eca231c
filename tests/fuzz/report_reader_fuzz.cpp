// libFuzzer entry point: the bytes are a report file, read the way `umbra report` reads one. Rejections
// (JsonParseError, ReportFormatError) are the expected outcome for bad input; a crash, a sanitizer report or any
// other exception is a bug. So is a report the streaming reader reads differently from the general reader.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string_view>

#include "report/json_parser.h"
#include "report/json_writer.h"
#include "report/report_reader.h"
#include "report/report_stream_reader.h"
#include "util/large_stack.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  // The command's stack: the reader's depth limit is sized for it.
  umbra::run_on_large_stack([&] {
    try {
      umbra::load_report_from_text(text);
    } catch (const umbra::JsonParseError&) {
    } catch (const umbra::ReportFormatError&) {
    }
    if (std::optional<umbra::Report> streamed = umbra::read_streamed_report(text)) {
      // The general reader must read it too (an exception here is a bug), to the same report.
      umbra::Report general = umbra::report_from_json(umbra::parse_json(text));
      if (umbra::report_to_json(*streamed) != umbra::report_to_json(general)) {
        std::fprintf(stderr, "the streaming and the general reader read this input differently\n");
        std::abort();
      }
    }
  });
  return 0;
}
