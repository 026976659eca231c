// Root's work on another user's program, done as that user. `umbra attach` and `umbra dump` make a directory and a
// FIFO the program must reach, read what the program writes there and talk to the program's socket: every one of
// those paths is in a place the program's user controls, and done as root, a link or FIFO swapped in at the right
// moment would turn root's rights against root (write or chown root's files, print them, hang the launcher).
//
// So when the launcher's effective user is not the program's, the work runs in a child that has become the
// program's user: its uid and gid (real, effective and saved) and its supplementary groups, not dumpable (another
// process of that user cannot trace it), no terminal (standard input is /dev/null, standard output and error a
// pipe; a session of its own). The parent keeps the terminal and shows each line the child writes through
// display_text(), so that nothing the program wrote can drive the terminal. A signal the parent gets (SIGINT,
// SIGTERM, SIGHUP, SIGQUIT) is passed on to the child; a second one also ends the child. A child stopped (the
// program's user may send it SIGSTOP) is ended, so that root's launcher never waits on it. When the launcher
// already is the program's user, the work runs in-process.
//
// Not for hot paths: fork, pipes, waitpid.
#pragma once

#include <sys/types.h>

#include <functional>
#include <vector>

namespace umbra::launcher {

// The work's exit status (the child's); 2 with one line on stderr when the child could not be made or could not
// become the user; 128 + the signal when a signal ended it.
int run_as_program_user(uid_t uid, gid_t gid, const std::vector<gid_t>& groups, const std::function<int()>& work);

}  // namespace umbra::launcher
