/* Preloaded into a profiled program to give umbra's report writer the errors of a full or read-only file system
   without mounting one (which needs privileges a test run may not have):
     UMBRA_FAULT_FULL_DIR=D      files opened for writing under D accept no data: every write fails with ENOSPC
     UMBRA_FAULT_READONLY_DIR=D  opening a file for writing under D fails with EROFS
   open, open64, fopen and fopen64 are intercepted (umbra's writer opens with open and writes with write). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { kTrackedFds = 4096 };
static volatile char g_full[kTrackedFds]; /* descriptors opened under UMBRA_FAULT_FULL_DIR */

static int under(const char* path, const char* variable) {
  const char* dir = getenv(variable);
  size_t n = dir ? strlen(dir) : 0;
  return path && n > 0 && strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

static FILE* faulty_fopen(const char* path, const char* mode, FILE* (*real)(const char*, const char*)) {
  int writing = strpbrk(mode, "wa+") != NULL;
  if (writing && under(path, "UMBRA_FAULT_FULL_DIR")) return real("/dev/full", mode);
  if (writing && under(path, "UMBRA_FAULT_READONLY_DIR")) {
    errno = EROFS;
    return NULL;
  }
  return real(path, mode);
}

static int faulty_open(const char* path, int flags, mode_t mode, int (*real)(const char*, int, ...)) {
  int writing = (flags & O_ACCMODE) != O_RDONLY;
  if (writing && under(path, "UMBRA_FAULT_READONLY_DIR")) {
    errno = EROFS;
    return -1;
  }
  int fd = real(path, flags, mode);
  if (fd >= 0 && fd < kTrackedFds) g_full[fd] = writing && under(path, "UMBRA_FAULT_FULL_DIR");
  return fd;
}

#define EXPORT __attribute__((visibility("default")))

EXPORT FILE* fopen(const char* path, const char* mode) {
  static FILE* (*real)(const char*, const char*);
  if (!real) real = (FILE * (*)(const char*, const char*)) dlsym(RTLD_NEXT, "fopen");
  return faulty_fopen(path, mode, real);
}

EXPORT FILE* fopen64(const char* path, const char* mode) {
  static FILE* (*real)(const char*, const char*);
  if (!real) real = (FILE * (*)(const char*, const char*)) dlsym(RTLD_NEXT, "fopen64");
  return faulty_fopen(path, mode, real);
}

static int on_open(const char* path, int flags, mode_t mode, int (*real)(const char*, int, ...)) {
  return faulty_open(path, flags, mode, real);
}
#include "interposed_open.h"

EXPORT ssize_t write(int fd, const void* data, size_t size) {
  static ssize_t (*real)(int, const void*, size_t);
  if (!real) real = (ssize_t(*)(int, const void*, size_t))dlsym(RTLD_NEXT, "write");
  if (fd >= 0 && fd < kTrackedFds && g_full[fd] && size > 0) {
    errno = ENOSPC;
    return -1;
  }
  return real(fd, data, size);
}

EXPORT int close(int fd) {
  static int (*real)(int);
  if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "close");
  if (fd >= 0 && fd < kTrackedFds) g_full[fd] = 0;
  return real(fd);
}
