// Reads an umbra-report/4 (or /3, /2) document as it is parsed (RapidJSON's SAX reader) straight into the report
// model, with no tree of the document's values: for a large report that tree takes several times the model's memory.
#pragma once

#include <optional>
#include <string_view>

#include "report/report.h"

namespace umbra {

// The report, or nothing when the text is not a valid /4, /3 or /2 report laid out as umbra writes one ("schema"
// first, "node_fields" and "frames" before "threads"): the general reader (load_report_from_text) then reads it, and
// says what is wrong, so that errors read the same whichever reader met them. What this returns is what the general
// reader returns for the same text.
std::optional<Report> read_streamed_report(std::string_view text);

}  // namespace umbra
