// `-o DIR/prefix` with a DIR that does not exist yet: the launcher makes it, as `mkdir -p` would (mode 0777 less
// the umask), before the program starts, so that every process of the run (and a descendant's log, written at its
// start) finds it.
#pragma once

#include <string>

namespace umbra::launcher {

// Makes the directory `prefix` names its reports in, with any missing parents. Returns "" when it is there, else
// the reason it could not be made.
std::string make_output_directory(const std::string& prefix);

// `path` made absolute against the launcher's working directory (as given if that cannot be read): the profiled
// processes write their reports from working directories of their own.
std::string absolute_path(const std::string& path);

}  // namespace umbra::launcher
