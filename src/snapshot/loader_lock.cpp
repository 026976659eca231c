#include "snapshot/loader_lock.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace umbra {
namespace {

// glibc's pthread_mutex_t on x86-64 begins with these (struct __pthread_mutex_s).
struct MutexHead {
  int lock;
  unsigned count;  // a recursive mutex's holds
  int owner;       // the holder's thread id
};

MutexHead* g_lock = nullptr;
// The C library's own unlock, not a sanitizer's interceptor of pthread_mutex_unlock: the loader took the lock inside
// the C library, where no interceptor saw it taken.
using Unlock = int (*)(pthread_mutex_t*);
Unlock g_unlock = pthread_mutex_unlock;

struct Search {
  const char* base;
  size_t size;
  pid_t self;
  static constexpr int kMaxCandidates = 8;
  size_t candidates[kMaxCandidates];
  int found;
};

// Called inside dl_iterate_phdr: the loader's lock is held by this thread once.
int note_held_mutexes(dl_phdr_info*, size_t, void* data) {
  Search& s = *static_cast<Search*>(data);
  for (size_t at = 0; at + sizeof(MutexHead) <= s.size && s.found < Search::kMaxCandidates; at += alignof(int)) {
    MutexHead head;
    std::memcpy(&head, s.base + at, sizeof head);
    if (head.owner == s.self && head.count == 1 && head.lock != 0) s.candidates[s.found++] = at;
  }
  return 1;  // one call is enough
}

}  // namespace

bool find_loader_lock() {
  if (g_lock) return true;
  if (void* unlock = dlvsym(RTLD_NEXT, "__pthread_mutex_unlock", "GLIBC_2.2.5"))
    g_unlock = reinterpret_cast<Unlock>(unlock);
  void* state = dlsym(RTLD_DEFAULT, "_rtld_global");
  Dl_info info{};
  void* entry = nullptr;
  if (state == nullptr || dladdr1(state, &info, &entry, RTLD_DL_SYMENT) == 0 || entry == nullptr) return false;
  const auto* symbol = static_cast<const ElfW(Sym)*>(entry);
  if (symbol->st_size < sizeof(MutexHead)) return false;
  Search s{static_cast<const char*>(state), size_t(symbol->st_size), pid_t(syscall(SYS_gettid)), {}, 0};
  dl_iterate_phdr(note_held_mutexes, &s);
  // The one that is free again now that dl_iterate_phdr returned.
  for (int i = 0; i < s.found; ++i) {
    auto* head = reinterpret_cast<MutexHead*>(const_cast<char*>(s.base) + s.candidates[i]);
    if (head->owner != s.self) {
      g_lock = head;
      return true;
    }
  }
  return false;
}

bool loader_lock_may_be_taken(pid_t self) {
  MutexHead* lock = g_lock;
  if (lock == nullptr) return true;
  return __atomic_load_n(&lock->lock, __ATOMIC_ACQUIRE) == 0 || __atomic_load_n(&lock->owner, __ATOMIC_RELAXED) == self;
}

pid_t loader_lock_owner() {
  MutexHead* lock = g_lock;
  if (lock == nullptr || __atomic_load_n(&lock->lock, __ATOMIC_ACQUIRE) == 0) return 0;
  return __atomic_load_n(&lock->owner, __ATOMIC_RELAXED);
}

unsigned loader_lock_holds(pid_t self) {
  MutexHead* lock = g_lock;
  if (lock == nullptr) return 0;
  return __atomic_load_n(&lock->owner, __ATOMIC_RELAXED) == self ? __atomic_load_n(&lock->count, __ATOMIC_RELAXED)
                                                                     : 0;
}

void release_loader_lock_to(pid_t self, unsigned held_before) {
  for (unsigned held = loader_lock_holds(self); held > held_before; --held)
    g_unlock(reinterpret_cast<pthread_mutex_t*>(g_lock));
}

}  // namespace umbra
