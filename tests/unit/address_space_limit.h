// Runs work in a forked child under an address-space limit (RLIMIT_AS) a little above what the process has mapped,
// for tests of what code does when an allocation fails, or of how much memory it takes. Not under ASan or TSan, whose
// shadow memory maps terabytes up front: callers skip those builds (kAddressSpaceLimitWorks).
#pragma once

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cinttypes>
#include <cstddef>
#include <cstdint>
#include <cstdio>

namespace umbra::testing {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kAddressSpaceLimitWorks = false;
#else
inline constexpr bool kAddressSpaceLimitWorks = true;
#endif

// The child's exit status (what `work` returned), or 128 + the signal that ended it (134: an abort, such as an
// exception no one caught).
template <typename Work>
int run_under_address_space_limit(size_t extra_bytes, Work&& work) {
  pid_t pid = fork();
  if (pid == 0) {
    uint64_t mapped_pages = 0;
    if (FILE* statm = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(statm, "%" SCNu64, &mapped_pages) != 1) mapped_pages = 0;
      std::fclose(statm);
    }
    rlim_t bytes = rlim_t(mapped_pages * uint64_t(sysconf(_SC_PAGESIZE)) + extra_bytes);
    rlimit limit{bytes, bytes};
    if (mapped_pages == 0 || setrlimit(RLIMIT_AS, &limit) != 0) _exit(100);
    _exit(work());
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace umbra::testing
