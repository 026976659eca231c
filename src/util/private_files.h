// Files umbra creates in directories other users may write to (/tmp, a shared output directory): never through a
// link or an existing file planted there, never readable by others while being written.
//
// Contract: plain system calls, no signal-safety promised; used by the report writer and the log at start-up and
// exit, never on a hot path.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

namespace umbra {

// A new file at `path`: O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC with mode 0600, so a link or file already there makes
// it fail (EEXIST) instead of being followed or truncated. Returns the descriptor, or -1 with errno set.
int create_private_file(const std::string& path);

// `content` to `path` through a new file beside it (created as above), renamed over `path` once whole: a reader
// never sees half a report, and a link at `path` is replaced, not followed. `mode` is applied before the rename.
// False with `error` set (strerror text) when it could not be written; no temporary file is left behind.
bool replace_file(const std::string& path, const std::string& content, mode_t mode, std::string& error);

// A log file to append to: created as above, or, if one is already there, opened only when it is a regular file of
// this user with one link (a log of an earlier run). Returns the descriptor, or -1 with `error` set.
int open_log_file(const std::string& path, std::string& error);

// A new directory only this user can enter (mkdtemp under $TMPDIR, else /tmp), for files that could not go where
// asked. Returns its path, or nothing with `error` set.
std::optional<std::string> make_private_directory(std::string& error);

// The mode a file created by the user's own programs would have: 0666 less the process's umask (read from
// /proc/self/status; setting the umask to read it would race with the program's own threads).
mode_t default_file_mode();

}  // namespace umbra
