/* Preloaded into a profiled program to give umbra's report writer the errors of a full or read-only file system
   without mounting one (which needs privileges a test run may not have):
     UMBRA_FAULT_FULL_DIR=D      files opened for writing under D are /dev/full: every write fails with ENOSPC
     UMBRA_FAULT_READONLY_DIR=D  opening a file for writing under D fails with EROFS
   Only fopen is intercepted: it is what umbra's writer uses. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int under(const char* path, const char* variable) {
  const char* dir = getenv(variable);
  size_t n = dir ? strlen(dir) : 0;
  return n > 0 && strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

static FILE* faulty_open(const char* path, const char* mode, FILE* (*real)(const char*, const char*)) {
  int writing = strpbrk(mode, "wa+") != NULL;
  if (writing && under(path, "UMBRA_FAULT_FULL_DIR")) return real("/dev/full", mode);
  if (writing && under(path, "UMBRA_FAULT_READONLY_DIR")) {
    errno = EROFS;
    return NULL;
  }
  return real(path, mode);
}

__attribute__((visibility("default"))) FILE* fopen(const char* path, const char* mode) {
  static FILE* (*real)(const char*, const char*);
  if (!real) real = (FILE * (*)(const char*, const char*)) dlsym(RTLD_NEXT, "fopen");
  return faulty_open(path, mode, real);
}

__attribute__((visibility("default"))) FILE* fopen64(const char* path, const char* mode) {
  static FILE* (*real)(const char*, const char*);
  if (!real) real = (FILE * (*)(const char*, const char*)) dlsym(RTLD_NEXT, "fopen64");
  return faulty_open(path, mode, real);
}
