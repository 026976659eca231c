// Reads a saved report (<prefix>.json, schema umbra-report/1) back into the report model, for `umbra report`.
// Anything that is not such a report is a ReportFormatError naming where in the document the problem is.
// Recursion follows the tree's depth: callers run it on a large stack (util/large_stack.h).
#pragma once

#include <stdexcept>
#include <string>

#include "report/json_value.h"
#include "report/report.h"

namespace umbra {

class ReportFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

Report report_from_json(const JsonValue& document);

}  // namespace umbra
