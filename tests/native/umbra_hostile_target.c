/* A program that stands in for a hostile profiled process in the privilege tests: run as another user, it does
   what such a process could do to the launcher of root's `umbra attach` and `umbra dump`.
     attach MODE [PATH]  listens on the diagnostics socket a .NET runtime would make, and when an AttachProfiler
                         message comes, does MODE in the control directory the message names, answers "loaded",
                         and says "reported" and "detached" as umbra would:
                           control-link PATH  the control FIFO swapped for a link to PATH
                           log-link PATH      umbra's log made a link to PATH
                           log-fifo           umbra's log made a FIFO
                           log-escapes        umbra's log holds terminal escape sequences
                           dir-link PATH      the control directory moved away, a link to PATH in its place
     dump MODE [PATH]    listens on umbra's control FIFO for `umbra dump`:
                           answer-link PATH   each umbra-dump-* directory's answer FIFO swapped for a link to PATH
                                              as soon as the directory lets it
                           escapes            answers with terminal escape sequences in a file name
                           silent             reads requests and never answers
     squat DIR PID START listens on DIR/dotnet-diagnostic-PID-START-socket (another process's name) and writes
                         whatever it receives to standard output
   Ends by itself after 20 s. Prints "ready" once it listens. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static const char* tmp_dir(void) {
  const char* tmp = getenv("TMPDIR");
  return tmp && *tmp ? tmp : "/tmp";
}

static unsigned long long start_ticks(void) {
  char text[4096];
  FILE* f = fopen("/proc/self/stat", "r");
  size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
  if (f) fclose(f);
  text[n] = 0;
  char* p = strrchr(text, ')');
  for (int field = 2; p && field < 22; ++field) p = strchr(p + 1, ' ');
  return p ? strtoull(p + 1, NULL, 10) : 0;
}

static int listen_at(const char* path) {
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un address = {.sun_family = AF_UNIX};
  snprintf(address.sun_path, sizeof address.sun_path, "%s", path);
  if (bind(fd, (struct sockaddr*)&address, sizeof address) != 0 || listen(fd, 4) != 0) {
    perror(path);
    exit(3);
  }
  return fd;
}

/* A whole IPC message; its bytes in `out` (at most `room`), the count returned. */
static size_t read_message(int fd, char* out, size_t room) {
  size_t got = 0, wanted = 20;
  while (got < wanted && got < room) {
    ssize_t n = read(fd, out + got, (wanted < room ? wanted : room) - got);
    if (n <= 0) break;
    got += (size_t)n;
    if (got >= 16) wanted = (unsigned char)out[14] | (size_t)(unsigned char)out[15] << 8;
  }
  return got;
}

static void answer_loaded(int fd) {
  unsigned char reply[24] = {'D', 'O', 'T', 'N', 'E', 'T', '_', 'I', 'P', 'C', '_', 'V', '1', 0, 24, 0, 0xFF, 0x00};
  ssize_t ignored = write(fd, reply, sizeof reply);
  (void)ignored;
}

static void mark(const char* dir, const char* name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  close(open(path, O_WRONLY | O_CREAT | O_EXCL, 0600));
}

static void replace_with_link(const char* dir, const char* name, const char* target) {
  char path[4096], temporary[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  snprintf(temporary, sizeof temporary, "%s/.%s", dir, name);
  unlink(temporary);
  if (symlink(target, temporary) == 0 && rename(temporary, path) == 0) return;
  unlink(temporary);
}

static int attach(const char* mode, const char* path) {
  char socket_path[4096];
  snprintf(socket_path, sizeof socket_path, "%s/dotnet-diagnostic-%d-%llu-socket", tmp_dir(), (int)getpid(),
           start_ticks());
  int server = listen_at(socket_path);
  printf("ready\n");
  fflush(stdout);
  struct pollfd ready = {server, POLLIN, 0};
  if (poll(&ready, 1, 20000) != 1) return 1;
  int client = accept(server, NULL, NULL);
  char message[65536 + 1];
  size_t size = read_message(client, message, sizeof message - 1);
  message[size] = 0;
  char* control = memmem(message, size, "\ncontrol=", 9);
  if (!control) return 4;
  char dir[2048];
  snprintf(dir, sizeof dir, "%.*s", (int)strcspn(control + 9, "\n"), control + 9);
  char log[4096];
  snprintf(log, sizeof log, "%s/log", dir);
  if (strcmp(mode, "control-link") == 0) replace_with_link(dir, "control", path);
  if (strcmp(mode, "log-link") == 0) replace_with_link(dir, "log", path);
  if (strcmp(mode, "log-fifo") == 0) mkfifo(log, 0600);
  if (strcmp(mode, "log-escapes") == 0) {
    FILE* f = fopen(log, "w");
    fprintf(f, "umbra: \x1b]0;taken\x07\x1b[2Jcleared\n");
    fclose(f);
  }
  char moved[2048 + 8];
  snprintf(moved, sizeof moved, "%s.moved", dir);
  if (strcmp(mode, "dir-link") == 0 && rename(dir, moved) == 0 && symlink(path, dir) == 0)
    snprintf(dir, sizeof dir, "%.2000s", moved);
  answer_loaded(client);
  usleep(300 * 1000);
  mark(dir, "reported");
  mark(dir, "detached");
  sleep(5);
  return 0;
}

static int dump(const char* mode, const char* path) {
  char fifo[4096];
  snprintf(fifo, sizeof fifo, "%s/umbra-control-%d-%llu", tmp_dir(), (int)getpid(), start_ticks());
  if (mkfifo(fifo, 0600) != 0) return 3;
  int fd = open(fifo, O_RDWR);
  printf("ready\n");
  fflush(stdout);
  for (time_t end = time(NULL) + 20; time(NULL) < end;) {
    if (strcmp(mode, "answer-link") == 0) {
      DIR* tmp = opendir(tmp_dir());
      while (tmp) {
        struct dirent* entry = readdir(tmp);
        if (!entry) break;
        if (strncmp(entry->d_name, "umbra-dump-", 11) != 0) continue;
        char dir[2048];
        snprintf(dir, sizeof dir, "%s/%.1000s", tmp_dir(), entry->d_name);
        replace_with_link(dir, "answer", path);
      }
      if (tmp) closedir(tmp);
    }
    struct pollfd ready = {fd, POLLIN, 0};
    if (poll(&ready, 1, strcmp(mode, "answer-link") == 0 ? 0 : 100) != 1) continue;
    char request[4096];
    ssize_t n = read(fd, request, sizeof request - 1);
    if (n <= 0) continue;
    request[n] = 0;
    request[strcspn(request, "\n")] = 0;
    if (strncmp(request, "report ", 7) != 0 || strcmp(mode, "escapes") != 0) continue;
    int answer = open(request + 7, O_WRONLY | O_NONBLOCK);
    dprintf(answer, "ok 1 1000\n/reports/r\x1b]0;taken\x07\x1b[2J.p1.json\nend\n");
    close(answer);
  }
  return 0;
}

static int squat(const char* dir, const char* pid, const char* start) {
  char path[4096];
  snprintf(path, sizeof path, "%s/dotnet-diagnostic-%s-%s-socket", dir, pid, start);
  int server = listen_at(path);
  printf("ready\n");
  fflush(stdout);
  struct pollfd ready = {server, POLLIN, 0};
  if (poll(&ready, 1, 20000) != 1) return 0;
  int client = accept(server, NULL, NULL);
  char message[65536];
  size_t size = read_message(client, message, sizeof message);
  fwrite(message, 1, size, stdout);
  return 0;
}

int main(int argc, char** argv) {
  if (argc >= 3 && strcmp(argv[1], "attach") == 0) return attach(argv[2], argc > 3 ? argv[3] : "");
  if (argc >= 3 && strcmp(argv[1], "dump") == 0) return dump(argv[2], argc > 3 ? argv[3] : "");
  if (argc == 5 && strcmp(argv[1], "squat") == 0) return squat(argv[2], argv[3], argv[4]);
  fprintf(stderr, "usage: see the comment at the top of umbra_hostile_target.c\n");
  return 2;
}
