#include "util/private_files.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace umbra {
namespace {

std::string parent_directory(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// A name no other process can guess, for the file that becomes the report once whole.
std::string temporary_name_beside(const std::string& path) {
  static constexpr char kLetters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  // getrandom: one system call, where std::random_device first asks the CPU what it supports (slow in a VM).
  unsigned char random[12];
  if (::getrandom(random, sizeof random, GRND_NONBLOCK) != ssize_t(sizeof random)) {  // never waits at early boot
    std::random_device device;
    for (unsigned char& byte : random) byte = static_cast<unsigned char>(device());
  }
  std::string name = parent_directory(path) + "/.umbra-";
  for (unsigned char byte : random) name += kLetters[byte % (sizeof kLetters - 1)];
  return name + ".tmp";
}

bool write_all(int fd, const std::string& content) {
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    done += size_t(n);
  }
  return true;
}

// rename(2) over an existing file makes ext4 write the new file's blocks out at once, on the exiting program's
// thread; exchanging the two names and unlinking the old file does not. Anything but a regular file at `path`
// (a directory, a link) is left to rename's own rules.
int move_into_place(const std::string& temporary, const std::string& path) {
  struct stat existing {};
  if (::lstat(path.c_str(), &existing) == 0 && S_ISREG(existing.st_mode) &&
      ::renameat2(AT_FDCWD, temporary.c_str(), AT_FDCWD, path.c_str(), RENAME_EXCHANGE) == 0) {
    ::unlink(temporary.c_str());
    return 0;
  }
  return std::rename(temporary.c_str(), path.c_str());
}

}  // namespace

int create_private_file(const std::string& path) {
  return ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
}

bool replace_file(const std::string& path, const std::string& content, mode_t mode, std::string& error) {
  std::string temporary;
  int fd = -1;
  for (int attempt = 0; attempt < 8 && fd < 0; ++attempt) {
    temporary = temporary_name_beside(path);
    fd = create_private_file(temporary);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) {
    error = std::strerror(errno);
    return false;
  }
  bool ok = write_all(fd, content) && ::fchmod(fd, mode) == 0;
  int saved = errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    saved = errno;
  }
  if (ok && move_into_place(temporary, path) != 0) {
    ok = false;
    saved = errno;
  }
  if (!ok) {
    error = std::strerror(saved);
    ::unlink(temporary.c_str());
  }
  return ok;
}

int open_log_file(const std::string& path, std::string& error) {
  int fd = create_private_file(path);
  if (fd >= 0) {
    ::fchmod(fd, default_file_mode());
    return fd;
  }
  if (errno != EEXIST) {
    error = std::strerror(errno);
    return -1;
  }
  // O_NONBLOCK: a FIFO planted there must not hang the program at start-up.
  fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    error = std::strerror(errno);
    return -1;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid() || st.st_nlink != 1) {
    ::close(fd);
    error = "a file not created by this user is already there";
    return -1;
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

std::optional<std::string> make_private_directory(std::string& error) {
  const char* tmp = std::getenv("TMPDIR");
  std::string base = tmp && *tmp ? tmp : "/tmp";
  std::vector<char> name(base.begin(), base.end());
  for (char c : std::string("/umbra-XXXXXX")) name.push_back(c);
  name.push_back('\0');
  if (::mkdtemp(name.data()) == nullptr) {
    error = std::strerror(errno);
    return std::nullopt;
  }
  return std::string(name.data());
}

mode_t default_file_mode() {
  mode_t umask_value = 022;
  if (FILE* status = std::fopen("/proc/self/status", "re")) {
    char line[256];
    while (std::fgets(line, sizeof line, status))
      if (std::strncmp(line, "Umask:", 6) == 0) {
        umask_value = mode_t(std::strtoul(line + 6, nullptr, 8)) & 0777;
        break;
      }
    std::fclose(status);
  }
  return 0666 & ~umask_value;
}

}  // namespace umbra
