// The version of the runtime umbra is loaded into, as the runtime itself states it (never a directory name: a
// self-contained program's runtime lives in the program's own directory). Read once, at start-up.
#pragma once

#include <string>
#include <string_view>

#include "clr/corprof.h"

namespace umbra {

// "10.0.12", "8.0.33", or "unknown" when the runtime does not say.
std::string runtime_version(clr::ICorProfilerInfo10& info);

// The runtime's version string when it agrees with its numbers (it may carry a pre-release label, which the
// numbers cannot), else major.minor.build from the numbers.
std::string runtime_version_from(unsigned major, unsigned minor, unsigned build, std::u16string_view text);

}  // namespace umbra
