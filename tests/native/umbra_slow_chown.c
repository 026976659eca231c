/* Preloaded into the launcher by the privilege tests: each chown() takes 300 ms more once done, the window in which
   a hostile process could swap the next path the launcher hands over. A launcher that hands nothing over by path
   never calls it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sys/types.h>
#include <unistd.h>

__attribute__((visibility("default"))) int chown(const char* path, uid_t owner, gid_t group) {
  static int (*real)(const char*, uid_t, gid_t);
  if (!real) real = (int (*)(const char*, uid_t, gid_t))dlsym(RTLD_NEXT, "chown");
  int result = real(path, owner, group);
  usleep(300 * 1000);
  return result;
}
