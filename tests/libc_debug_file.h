// Where libc's debug file is, as Debian's libc6-dbg installs it and umbra looks for it: by libc's build id under the
// system's debug root. Shared by the unit and end-to-end tests.
#pragma once

#include <dlfcn.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <libelf.h>
#include <link.h>
#include <unistd.h>

#include <optional>
#include <string>

#include "snapshot/debug_file_paths.h"

namespace umbra::testing {

// The path ("" when libc has no build id), or nothing when libc itself cannot be found or read.
inline std::optional<std::string> libc_debug_file() {
  Dl_info info{};
  link_map* libc = nullptr;
  if (dladdr1(reinterpret_cast<void*>(&::write), &info, reinterpret_cast<void**>(&libc), RTLD_DL_LINKMAP) == 0)
    return std::nullopt;
  std::string debug_file;
  elf_version(EV_CURRENT);
  int fd = ::open(libc->l_name, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  if (Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr)) {
    const void* id = nullptr;
    ssize_t length = dwelf_elf_gnu_build_id(elf, &id);
    if (length > 0)
      debug_file = build_id_debug_path(kSystemDebugRoot, static_cast<const unsigned char*>(id), size_t(length));
    elf_end(elf);
  }
  ::close(fd);
  return debug_file;
}

}  // namespace umbra::testing
