// libFuzzer entry point: the bytes are a report file, read the way `umbra report` reads one. Rejections
// (JsonParseError, ReportFormatError) are the expected outcome for bad input; a crash, a sanitizer report or any
// other exception is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "report/json_parser.h"
#include "report/report_reader.h"
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
  });
  return 0;
}
