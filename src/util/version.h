// The version of umbra itself (CMake's project() version), which every report and `umbra --version` state.
#pragma once

namespace umbra {

const char* umbra_version();

}  // namespace umbra
