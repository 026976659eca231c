// The launcher's closing lines: where each process of the run left its reports, each process named by its
// program and command line (from the start of its JSON report), so that the reports of a `dotnet build` (the SDK,
// MSBuild nodes, the compiler) can be told apart.
#pragma once

#include <string>

namespace umbra::launcher {

// The lines for the reports under `prefix`, each ending in a newline. `status` is the launched program's wait
// status: it says why there may be no report.
std::string report_listing(const std::string& prefix, int status);

}  // namespace umbra::launcher
