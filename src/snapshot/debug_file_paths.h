// Where a module's separate debug file may be, as the GNU tools look for it: by build id under the debug root
// (/usr/lib/debug/.build-id/xx/yyyy.debug, what Debian's -dbg packages install), and by the name in its
// .gnu_debuglink section next to the module, in a .debug directory beside it, and under the debug root followed by
// the module's directory. Pure functions: no file is opened here.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace umbra {

inline constexpr const char* kSystemDebugRoot = "/usr/lib/debug";

// "<root>/.build-id/xx/yyyy.debug" for the build id's bytes (lower-case hexadecimal); "" for an empty id.
std::string build_id_debug_path(std::string_view root, const unsigned char* id, size_t length);

// The places a .gnu_debuglink name is looked for, in order, for the module at `module_path` (an absolute path).
std::vector<std::string> debuglink_paths(const std::string& module_path, const std::string& debuglink,
                                         std::string_view root);

}  // namespace umbra
