/* open() and open64() for a preloaded test library: each call is handed to the library's
     static int on_open(const char* path, int flags, mode_t mode, int (*real)(const char*, int, ...));
   with the mode read from the variadic argument where the flags create a file. Include it once, after defining
   on_open. On x86-64 open64 is open (no large-file flag is needed): one interception serves both names. */
#pragma once

#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>

static int on_open(const char* path, int flags, mode_t mode, int (*real)(const char*, int, ...));

__attribute__((visibility("default"))) int open(const char* path, int flags, ...) {
  static int (*real)(const char*, int, ...);
  if (!real) real = (int (*)(const char*, int, ...))dlsym(RTLD_NEXT, "open");
  va_list args;
  va_start(args, flags);
  mode_t mode = (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(args, int) : 0;
  va_end(args);
  return on_open(path, flags, mode, real);
}

__attribute__((visibility("default"))) int open64(const char* path, int flags, ...) __attribute__((alias("open")));
