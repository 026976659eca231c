#include "snapshot/native_capture.h"

#include "snapshot/unwind_info.h"

#include <linux/futex.h>
#include <signal.h>
#include <ucontext.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace umbra {
namespace {

int g_signal = 0;

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

// Async-signal-safe: only libunwind local unwinding (per-thread caching) and atomics on the capture.
// ThreadSanitizer does not model a signal's delivery as ordering; tests/tsan.supp says so for this handler.
void on_capture_signal(int, siginfo_t* info, void* ucontext) {
  int saved_errno = errno;
  auto* capture = info && info->si_code == SI_QUEUE && info->si_pid == getpid()
                      ? static_cast<NativeCapture*>(info->si_value.sival_ptr)
                      : nullptr;
  // An exchange, not a store: reading the requester's release store orders everything it wrote before this.
  if (capture != nullptr) capture->signal_queued.exchange(false, std::memory_order_acq_rel);
  uint32_t expected = NativeCapture::kRequested;
  // The acquire load pairs with the request's release store, so everything the sampler wrote before signalling
  // (the magic included) is visible here.
  if (capture != nullptr && capture->state.load(std::memory_order_acquire) == NativeCapture::kRequested &&
      capture->magic == NativeCapture::kMagic &&
      capture->state.compare_exchange_strong(expected, NativeCapture::kCapturing, std::memory_order_acq_rel)) {
    unw_cursor_t cursor;
    uint32_t count = 0;
    uintptr_t stop_ip = 0;
    bool truncated = false;
    auto interrupted_ip = uintptr_t(static_cast<ucontext_t*>(ucontext)->uc_mcontext.gregs[REG_RIP]);
    if (outside_elf_code(interrupted_ip)) {
      stop_ip = interrupted_ip;  // interrupted in managed code: no native top, and no libunwind lookup
    } else if (unw_init_local2(&cursor, static_cast<unw_context_t*>(ucontext), UNW_INIT_SIGNAL_FRAME) == 0) {
      for (;;) {
        unw_word_t ip = 0;
        if (unw_get_reg(&cursor, UNW_REG_IP, &ip) != 0 || ip == 0) break;
        if (!has_unwind_info(cursor, ip)) {
          stop_ip = ip;  // no unwind information: JIT-compiled code, where the managed stack begins
          break;
        }
        if (count == NativeCapture::kMaxFrames) {
          truncated = true;
          break;
        }
        capture->frames[count++] = ip;
        if (unw_step(&cursor) <= 0) break;
      }
    }
    capture->count = count;
    capture->stop_ip = stop_ip;
    capture->truncated = truncated;
    capture->state.store(NativeCapture::kDone, std::memory_order_release);
    count_answer();
  }
  errno = saved_errno;
}

}  // namespace

int install_native_capture_handler() {
  if (g_signal != 0) return g_signal;
  unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
  // The runtime injects activations with SIGRTMIN; look above it for a signal nobody handles.
  for (int sig = SIGRTMIN + 3; sig <= SIGRTMAX - 2; ++sig) {
    struct sigaction current {};
    if (sigaction(sig, nullptr, &current) != 0) continue;
    bool free = !(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_DFL;
    if (!free) continue;
    struct sigaction action {};
    action.sa_sigaction = on_capture_signal;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigfillset(&action.sa_mask);
    if (sigaction(sig, &action, nullptr) == 0) {
      g_signal = sig;
      return sig;
    }
  }
  return 0;
}

bool request_native_capture(pid_t tid, NativeCapture& capture) {
  if (g_signal == 0) return false;
  // A thread that has not taken the last signal yet (blocked, or not scheduled) gets no second one: real-time
  // signals queue, and a queue per tick would exhaust RLIMIT_SIGPENDING.
  if (capture.signal_queued.load(std::memory_order_acquire)) return false;
  capture.state.store(NativeCapture::kRequested, std::memory_order_release);
  siginfo_t info;
  std::memset(&info, 0, sizeof info);
  info.si_signo = g_signal;
  info.si_code = SI_QUEUE;
  info.si_pid = getpid();
  info.si_uid = getuid();
  info.si_value.sival_ptr = &capture;
  capture.signal_queued.store(true, std::memory_order_release);
  g_outstanding.fetch_add(1, std::memory_order_acq_rel);  // before the signal: the answer may come at once
  if (syscall(SYS_rt_tgsigqueueinfo, getpid(), tid, g_signal, &info) == 0) return true;
  g_outstanding.fetch_sub(1, std::memory_order_acq_rel);
  capture.signal_queued.store(false, std::memory_order_release);
  cancel_native_capture(capture);
  return false;
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
