#include "snapshot/native_capture.h"

#include "hooks/shadow_hooks.h"
#include "hooks/thread_shadow.h"
#include "snapshot/code_ranges.h"
#include "snapshot/interrupted_syscall.h"
#include "snapshot/loader_lock.h"
#include "snapshot/thread_cpu_time.h"
#include "util/log.h"
#include "snapshot/unwind_info.h"
#include "snapshot/unwind_rows.h"
#include "snapshot/whole_stack_unwind.h"

#include <dirent.h>
#include <fcntl.h>
#include <link.h>
#include <linux/futex.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/random.h>
#include <ucontext.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace umbra {
namespace {

int g_signal = 0;
// Whether g_signal is the runtime's activation signal, its handler kept behind umbra's for every signal not umbra's.
bool g_shares_activation_signal = false;

// The futex word of a round: requests sent and not yet answered. It changes with every answer, so a requester
// that read it before deciding to sleep cannot miss one.
std::atomic<int32_t> g_outstanding{0};
static_assert(sizeof(g_outstanding) == sizeof(int32_t) && std::atomic<int32_t>::is_always_lock_free);

int* futex_word() { return reinterpret_cast<int*>(&g_outstanding); }

// Async-signal-safe. Wakes the requester once nothing is outstanding; a count driven below zero by a late answer
// from an earlier round wakes it at every answer (early, never late).
void count_answer() {
  if (g_outstanding.fetch_sub(1, std::memory_order_acq_rel) - 1 <= 0)
    syscall(SYS_futex, futex_word(), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

// The table the signal's value indexes: captures never move, and a slot is cleared before its capture is freed.
constexpr uint32_t kMaxSlots = 1u << 16;
std::atomic<NativeCapture*> g_slots[kMaxSlots];
std::atomic<uint32_t> g_slots_used{0};

// Random per process: a value forged by another process does not name a capture.
uint32_t make_cookie() {
  uint32_t cookie = 0;
  while (cookie == 0)
    if (getrandom(&cookie, sizeof cookie, 0) != sizeof cookie) cookie = uint32_t(getpid()) * 2654435761u | 1u;
  return cookie;
}
const uint32_t g_cookie = make_cookie();

sigval value_naming(uint32_t slot) {
  sigval value;
  value.sival_ptr = reinterpret_cast<void*>((uint64_t(g_cookie) << 32) | slot);
  return value;
}

// Async-signal-safe. Whether umbra's sampler sent this signal: queued from this process with the cookie.
bool sent_by_umbra(const siginfo_t* info) {
  return info && info->si_code == SI_QUEUE && info->si_pid == getpid() &&
         uint32_t(reinterpret_cast<uint64_t>(info->si_value.sival_ptr) >> 32) == g_cookie;
}

// Async-signal-safe. The capture the value of a signal sent_by_umbra names, if it was requested of the calling
// thread; nullptr otherwise.
NativeCapture* capture_named_by(sigval value) {
  uint32_t slot = uint32_t(reinterpret_cast<uint64_t>(value.sival_ptr));
  if (slot >= kMaxSlots) return nullptr;
  NativeCapture* capture = g_slots[slot].load(std::memory_order_acquire);
  if (capture == nullptr || capture->target_tid.load(std::memory_order_acquire) != pid_t(syscall(SYS_gettid)))
    return nullptr;
  return capture;
}

// Threads unwinding right now, so that a fault inside the unwinder returns to its capture. Few threads unwind at
// once (one signal per thread per tick); a thread that finds every entry taken skips its unwind.
struct Unwinding {
  std::atomic<pid_t> tid{0};
  sigjmp_buf* recover = nullptr;
  unsigned loader_lock_held = 0;  // the thread's holds of the loader's lock when it began (snapshot/loader_lock.h)
  // Set once the thread is known to have held no part of the loader's lock when its handler began: any hold it has
  // while this is set is its handler's own, given back before the handler returns.
  std::atomic<bool> holds_only_its_own{false};
};
constexpr int kMaxUnwinding = 64;
Unwinding g_unwinding[kMaxUnwinding];
std::atomic<int> g_unwinding_count{0};  // a fault elsewhere in the program costs one load when this is 0
struct sigaction g_previous_fault_action[2];  // SIGSEGV, SIGBUS
struct sigaction g_previous_capture_action;   // the capture signal's: the runtime's, or SIG_DFL when found free

Unwinding* begin_unwinding(pid_t self, sigjmp_buf* recover) {
  for (Unwinding& u : g_unwinding) {
    pid_t free = 0;
    if (u.tid.compare_exchange_strong(free, self, std::memory_order_acq_rel)) {
      u.recover = recover;
      u.loader_lock_held = loader_lock_holds(self);
      u.holds_only_its_own.store(u.loader_lock_held == 0, std::memory_order_release);
      g_unwinding_count.fetch_add(1, std::memory_order_acq_rel);
      return &u;
    }
  }
  return nullptr;
}

void end_unwinding(Unwinding* u) {
  g_unwinding_count.fetch_sub(1, std::memory_order_acq_rel);
  u->holds_only_its_own.store(false, std::memory_order_release);
  u->recover = nullptr;
  u->tid.store(0, std::memory_order_release);
}

// Whether the loader's lock is held by another thread's handler, unwinding: it gives the lock back without waiting
// for anyone, so this one may wait for it. Not when that thread held the lock before its handler began: the
// interrupted code keeps it after the handler returns. Two threads answering at once (two busy threads on two
// cores) would otherwise decline one sample in fifteen as loader_busy.
bool loader_lock_held_by_another_unwinder(pid_t self) {
  pid_t owner = loader_lock_owner();
  if (owner == 0 || owner == self) return false;
  for (const Unwinding& u : g_unwinding)
    if (u.tid.load(std::memory_order_acquire) == owner && u.holds_only_its_own.load(std::memory_order_acquire))
      return true;
  return false;
}

// A fault in the unwinder goes back to its capture; any other fault is the program's (or the runtime's: a
// NullReferenceException is a SIGSEGV) and goes to the handler that was installed before.
void on_fault(int signo, siginfo_t* info, void* ucontext) {
  if (g_unwinding_count.load(std::memory_order_acquire) > 0) {
    pid_t self = pid_t(syscall(SYS_gettid));
    for (Unwinding& u : g_unwinding)
      if (u.tid.load(std::memory_order_acquire) == self && u.recover != nullptr) {
        release_loader_lock_to(self, u.loader_lock_held);  // a fault inside dl_iterate_phdr must not keep its lock
        siglongjmp(*u.recover, 1);
      }
  }
  const struct sigaction& previous = g_previous_fault_action[signo == SIGSEGV ? 0 : 1];
  if (previous.sa_flags & SA_SIGINFO) {
    previous.sa_sigaction(signo, info, ucontext);
  } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
    previous.sa_handler(signo);
  } else {
    // As if no handler were installed: the faulting instruction runs again and the default action ends the process.
    signal(signo, SIG_DFL);
    if (info == nullptr || info->si_code <= 0) raise(signo);  // sent by a process, not a fault: deliver it again
  }
}

void install_fault_guard() {
  int index = 0;
  for (int signo : {SIGSEGV, SIGBUS}) {
    struct sigaction current {};
    sigaction(signo, nullptr, &current);
    g_previous_fault_action[index++] = current;
    struct sigaction action = current;  // the same flags (SA_ONSTACK for stack overflows) and mask
    action.sa_sigaction = on_fault;
    action.sa_flags = (current.sa_flags | SA_SIGINFO) & ~SA_RESETHAND;
    sigaction(signo, &action, nullptr);
  }
}

// Unwinds from the interrupted context into `capture`, ending at the first IP without unwind information.
void unwind_native_top(NativeCapture& capture, void* ucontext) {
  if (capture.through_managed) {
    unwind_whole_stack(capture, ucontext);
    return;
  }
  unw_cursor_t cursor;
  uint32_t count = 0;
  uintptr_t stop_ip = 0;
  bool truncated = false;
  auto interrupted_ip = uintptr_t(static_cast<ucontext_t*>(ucontext)->uc_mcontext.gregs[REG_RIP]);
  if (outside_elf_code(interrupted_ip)) {
    stop_ip = interrupted_ip;  // interrupted in managed code: no native top, and no libunwind lookup
  } else if (unw_init_local2(&cursor, static_cast<unw_context_t*>(ucontext), UNW_INIT_SIGNAL_FRAME) == 0) {
    bool exact_lookup = true;
    for (;;) {
      unw_word_t ip = 0;
      if (unw_get_reg(&cursor, UNW_REG_IP, &ip) != 0 || ip == 0) break;
      if (!remember_row_of(cursor, ip, exact_lookup) && !has_unwind_info(cursor, ip, /*interrupted=*/count == 0)) {
        stop_ip = ip;  // no unwind information: JIT-compiled code, where the managed stack begins
        break;
      }
      if (count == capture.capacity()) {
        truncated = true;
        break;
      }
      capture.frames[count++] = ip;
      if (step_by_remembered_row(cursor, ip, exact_lookup) <= 0) break;
    }
  }
  capture.count = count;
  capture.stop_ip = stop_ip;
  capture.truncated = truncated;
}

std::atomic<NativeUnwinder> g_unwinder{unwind_native_top};

// The dynamic loader tells debuggers (r_debug.r_state) while dlopen or dlclose changes its list of objects. The
// unwinder reads that list (dl_iterate_phdr), and on the thread doing the change its lock lets it in: the list is
// then half-changed. The lock itself must be free or wholly this thread's (snapshot/loader_lock.h).
bool loader_changing_objects() {
  return *static_cast<volatile decltype(_r_debug.r_state)*>(&_r_debug.r_state) != r_debug::RT_CONSISTENT;
}

// The handler's CPU time on the threads it captured, from taking a request to answering it, and its answers.
std::atomic<uint64_t> g_handler_cpu_ns{0};
std::atomic<uint64_t> g_handler_answers{0};

// Threads inside on_capture_signal: umbra's code must stay mapped until none is.
std::atomic<int32_t> g_handlers_running{0};

// Async-signal-safe: only libunwind local unwinding (its cache taken with every signal blocked), the remembered
// unwind rows (snapshot/unwind_rows.h), atomics and the validated capture.
// ThreadSanitizer does not model a signal's delivery as ordering; tests/tsan.supp says so for this handler.
void on_capture_signal(int signo, siginfo_t* info, void* ucontext) {
  g_handlers_running.fetch_add(1, std::memory_order_acq_rel);
  bool ours = sent_by_umbra(info);
  if (!ours && g_shares_activation_signal) {  // the runtime's own activation (or anyone else's signal): its handler
    g_previous_capture_action.sa_sigaction(signo, info, ucontext);
    g_handlers_running.fetch_sub(1, std::memory_order_acq_rel);
    return;
  }
  int saved_errno = errno;
  // Whether the thread was waiting is read before the call is put back, which changes the context.
  const bool in_system_call = ours && interrupted_in_a_system_call(ucontext);
  // The sampler does not signal a thread blocked in a call a handler fails; one that entered it since gets it back.
  if (ours) restart_call_failed_by_handler(ucontext);
  NativeCapture* capture = ours ? capture_named_by(info->si_value) : nullptr;
  // An exchange, not a store: reading the requester's release store orders everything it wrote before this.
  if (capture != nullptr) capture->signal_queued.exchange(false, std::memory_order_acq_rel);
  uint32_t expected = NativeCapture::kRequested;
  if (capture != nullptr &&
      capture->state.compare_exchange_strong(expected, NativeCapture::kCapturing, std::memory_order_acq_rel)) {
    const uint64_t cpu_ns_at_request = current_thread_cpu_ns();
    capture->in_system_call = in_system_call;
    capture->count = 0;
    capture->faulted = false;
    capture->end = StackEnd::kUnwindFailed;
    const pid_t self = pid_t(syscall(SYS_gettid));
    capture->loader_busy = loader_changing_objects() ||
                           !(loader_lock_may_be_taken(self) || loader_lock_held_by_another_unwinder(self));
    // The node of this instant: the thread is stopped here, so its shadow stack and its real stack agree. A thread
    // whose first hook ran after the request was prepared has a shadow the requester did not know of: its own.
    const ThreadShadow* shadow = capture->shadow ? capture->shadow : hooks::existing_shadow();
    capture->shadow_node = shadow ? shadow->current_node() : nullptr;
    sigjmp_buf recover;
    Unwinding* unwinding =
        capture->loader_busy ? nullptr : begin_unwinding(self, &recover);
    if (unwinding == nullptr) {
      capture->stop_ip = 0;
      capture->truncated = false;
    } else if (sigsetjmp(recover, 1) == 0) {
      g_unwinder.load(std::memory_order_acquire)(*capture, ucontext);
    } else {
      capture->count = 0;  // back from on_fault: the frames read so far may be garbage
      capture->stop_ip = 0;
      capture->faulted = true;
    }
    if (unwinding) end_unwinding(unwinding);
    // The requester tells a thread that ran on after answering from one that went back to waiting (its stack then
    // still the one taken here).
    capture->cpu_ns_at_answer = current_thread_cpu_ns();
    if (cpu_ns_at_request != 0 && capture->cpu_ns_at_answer >= cpu_ns_at_request) {
      g_handler_cpu_ns.fetch_add(capture->cpu_ns_at_answer - cpu_ns_at_request, std::memory_order_relaxed);
      g_handler_answers.fetch_add(1, std::memory_order_relaxed);
    }
    capture->state.store(NativeCapture::kDone, std::memory_order_release);
    count_answer();
  }
  errno = saved_errno;
  g_handlers_running.fetch_sub(1, std::memory_order_acq_rel);
}

}  // namespace

NativeCapture::NativeCapture() : slot([this] {
  uint32_t slot = g_slots_used.fetch_add(1, std::memory_order_acq_rel);
  if (slot < kMaxSlots) {
    g_slots[slot].store(this, std::memory_order_release);
    return slot;
  }
  g_slots_used.store(kMaxSlots, std::memory_order_release);
  for (uint32_t i = 0; i < kMaxSlots; ++i) {  // every slot handed out once: reuse a freed one
    NativeCapture* free = nullptr;
    if (g_slots[i].compare_exchange_strong(free, this, std::memory_order_acq_rel)) return i;
  }
  return kNoSlot;
}()) {
  hold_frames(kFirstFrames);
}

void NativeCapture::hold_frames(uint32_t wanted) {
  const uint32_t held = std::min((wanted + 63) / 64 * 64, kMaxFrames);
  if (held <= capacity_) return;
  auto storage = std::make_unique<uintptr_t[]>(2 * size_t(held) + held / 64);  // zeroed
  frames = storage.get();
  skipped_caller = frames + held;
  recovered = reinterpret_cast<uint64_t*>(skipped_caller + held);
  storage_ = std::move(storage);
  capacity_ = held;
}

NativeCapture::~NativeCapture() {
  if (slot != kNoSlot) g_slots[slot].store(nullptr, std::memory_order_release);
}

// The handler's return and the thread going back to its wait: 2-6 us measured.
constexpr uint64_t kReturnFromHandlerNs = 20'000;

bool stood_still_since_answer(const NativeCapture& capture, uint64_t cpu_ns_now) {
  return capture.cpu_ns_at_answer != 0 && cpu_ns_now >= capture.cpu_ns_at_answer &&
         cpu_ns_now - capture.cpu_ns_at_answer <= kReturnFromHandlerNs;
}

namespace {

// The runtime's activation signal (SIGRTMIN), with umbra's handler in front of the runtime's. The runtime handles
// SIGSEGV (a NullReferenceException) on the thread's alternate signal stack, which is small; a signal delivered
// there can overflow it (its frame holds the whole vector state, several KiB), and the kernel then kills the
// process. So the runtime blocks its activation signal while on that stack, and unblocks it on the thread's own
// stack, even when the exception resumes the program without returning from the handler. Any other signal would
// need the same care, and only the runtime's code knows when the thread has left that stack.
bool share_activation_signal() {
  struct sigaction current {};
  if (sigaction(SIGRTMIN, nullptr, &current) != 0 || !(current.sa_flags & SA_SIGINFO) ||
      current.sa_sigaction == nullptr)
    return false;  // no runtime handler to stand in front of (a program without the runtime: tests)
  struct sigaction action = current;  // the runtime's flags and mask
  action.sa_sigaction = on_capture_signal;
  if (sigaction(SIGRTMIN, &action, &g_previous_capture_action) != 0) return false;
  g_shares_activation_signal = true;
  return true;
}

}  // namespace

int install_native_capture_handler() {
  if (g_signal != 0) return g_signal;
  // A libunwind built without per-thread caches (Debian's) keeps its global one: the unwind rows spare most uses.
  unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
  if (!find_loader_lock())
    log::info("the C library's loader lock was not found: a library unloaded while a stack is unwound could leave "
              "it taken");
  if (share_activation_signal()) {
    install_fault_guard();
    g_signal = SIGRTMIN;
    return g_signal;
  }
  // Without the runtime's handler: a signal nobody handles, above those the runtime uses.
  for (int sig = SIGRTMIN + 3; sig <= SIGRTMAX - 2; ++sig) {
    struct sigaction current {};
    if (sigaction(sig, nullptr, &current) != 0) continue;
    bool free = !(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_DFL;
    if (!free) continue;
    struct sigaction action {};
    action.sa_sigaction = on_capture_signal;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigfillset(&action.sa_mask);
    // A fault in the unwinder must reach on_fault, not kill the process as a blocked fault signal would.
    sigdelset(&action.sa_mask, SIGSEGV);
    sigdelset(&action.sa_mask, SIGBUS);
    if (sigaction(sig, &action, &g_previous_capture_action) == 0) {
      install_fault_guard();
      g_signal = sig;
      return sig;
    }
  }
  return 0;
}

namespace {

bool handler_is(int signo, void (*handler)(int, siginfo_t*, void*)) {
  struct sigaction current {};
  return sigaction(signo, nullptr, &current) == 0 && (current.sa_flags & SA_SIGINFO) && current.sa_sigaction == handler;
}

// A thread's /proc status, read into `status` without allocating (the masks come well inside the first 4 KB).
// False if it cannot be read: the thread has ended.
bool read_task_status(pid_t tid, char (&status)[4096]) {
  char path[48];
  std::snprintf(path, sizeof path, "/proc/self/task/%d/status", int(tid));
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  ssize_t n = ::read(fd, status, sizeof status - 1);
  ::close(fd);
  if (n <= 0) return false;
  status[n] = '\0';
  return true;
}

// Whether the signal mask on the status line `field` ("\nSigPnd:", "\nShdPnd:", "\nSigBlk:") holds `signo`.
bool mask_holds(const char* status, const char* field, int signo) {
  const char* line = std::strstr(status, field);
  return line != nullptr && (std::strtoull(line + std::strlen(field), nullptr, 16) >> (signo - 1)) & 1;
}

}  // namespace

bool native_capture_signal_pending() {
  if (g_signal == 0) return false;
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == nullptr) return true;  // cannot tell: assume the worst
  bool pending = false;
  char status[4096];
  while (dirent* entry = readdir(tasks)) {
    if (entry->d_name[0] == '.') continue;
    // Pending for the thread (SigPnd) or for the whole process (ShdPnd).
    pending |= read_task_status(pid_t(std::atoi(entry->d_name)), status) &&
               (mask_holds(status, "\nSigPnd:", g_signal) || mask_holds(status, "\nShdPnd:", g_signal));
  }
  closedir(tasks);
  return pending;
}

bool native_capture_signal_blocked(pid_t tid) {
  char status[4096];
  return g_signal != 0 && tid > 0 && read_task_status(tid, status) && mask_holds(status, "\nSigBlk:", g_signal);
}

bool native_capture_handler_running() { return g_handlers_running.load(std::memory_order_acquire) != 0; }

bool uninstall_native_capture_handler() {
  if (g_signal == 0) return true;
  if (!handler_is(g_signal, on_capture_signal) || !handler_is(SIGSEGV, on_fault) || !handler_is(SIGBUS, on_fault))
    return false;
  sigaction(SIGSEGV, &g_previous_fault_action[0], nullptr);
  sigaction(SIGBUS, &g_previous_fault_action[1], nullptr);
  sigaction(g_signal, &g_previous_capture_action, nullptr);
  g_signal = 0;
  g_shares_activation_signal = false;
  return true;
}

void replace_native_unwinder(NativeUnwinder unwinder) {
  g_unwinder.store(unwinder ? unwinder : unwind_native_top, std::memory_order_release);
}

bool request_native_capture(pid_t tid, NativeCapture& capture) {
  if (g_signal == 0 || capture.slot == NativeCapture::kNoSlot) return false;
  // A thread that has not taken the last signal yet (blocked, or not scheduled) gets no second one: real-time
  // signals queue, and a queue per tick would exhaust RLIMIT_SIGPENDING.
  if (capture.signal_queued.load(std::memory_order_acquire)) return false;
  capture.target_tid.store(tid, std::memory_order_release);
  capture.state.store(NativeCapture::kRequested, std::memory_order_release);
  siginfo_t info;
  std::memset(&info, 0, sizeof info);
  info.si_signo = g_signal;
  info.si_code = SI_QUEUE;
  info.si_pid = getpid();
  info.si_uid = getuid();
  info.si_value = value_naming(capture.slot);
  capture.signal_queued.store(true, std::memory_order_release);
  g_outstanding.fetch_add(1, std::memory_order_acq_rel);  // before the signal: the answer may come at once
  if (syscall(SYS_rt_tgsigqueueinfo, getpid(), tid, g_signal, &info) == 0) return true;
  g_outstanding.fetch_sub(1, std::memory_order_acq_rel);
  capture.signal_queued.store(false, std::memory_order_release);
  cancel_native_capture(capture);
  return false;
}

CaptureHandlerCost capture_handler_cost() {
  return {g_handler_answers.load(std::memory_order_relaxed), g_handler_cpu_ns.load(std::memory_order_relaxed)};
}

bool cancel_native_capture(NativeCapture& capture) {
  uint32_t expected = NativeCapture::kRequested;
  return capture.state.compare_exchange_strong(expected, NativeCapture::kIdle, std::memory_order_acq_rel);
}

void begin_native_capture_round() { g_outstanding.store(0, std::memory_order_release); }

uint32_t native_capture_answers() { return uint32_t(g_outstanding.load(std::memory_order_acquire)); }

void wait_for_native_capture_answer(uint32_t seen, std::chrono::nanoseconds timeout) {
  if (timeout.count() <= 0) return;
  timespec relative{time_t(timeout.count() / 1000000000), long(timeout.count() % 1000000000)};
  // EAGAIN (an answer came after `seen`), EINTR and ETIMEDOUT all mean: look again.
  syscall(SYS_futex, futex_word(), FUTEX_WAIT_PRIVATE, int(seen), &relative, nullptr, 0);
}

}  // namespace umbra
