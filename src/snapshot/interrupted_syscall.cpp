#include "snapshot/interrupted_syscall.h"

#include <errno.h>
#include <sys/syscall.h>
#include <ucontext.h>

#include <cstdint>
#include <cstring>

#include "snapshot/code_ranges.h"

namespace umbra {

bool fails_with_eintr_after_a_handler(long number) {
  switch (number) {
#if defined(__x86_64__)
    case SYS_poll: case SYS_ppoll: case SYS_select: case SYS_pselect6:
    case SYS_epoll_wait: case SYS_epoll_pwait:
#ifdef SYS_epoll_pwait2
    case SYS_epoll_pwait2:
#endif
    case SYS_nanosleep: case SYS_clock_nanosleep: case SYS_pause:
    case SYS_rt_sigtimedwait: case SYS_rt_sigsuspend: case SYS_io_getevents:
    case SYS_msgrcv: case SYS_msgsnd: case SYS_semop: case SYS_semtimedop:
    // Socket calls fail with EINTR when the socket has a timeout (SO_RCVTIMEO, SO_SNDTIMEO), which the sampler
    // cannot see.
    case SYS_accept: case SYS_accept4: case SYS_connect: case SYS_recvfrom: case SYS_recvmsg: case SYS_recvmmsg:
    case SYS_sendto: case SYS_sendmsg: case SYS_sendmmsg:
      return true;
#endif
    default:
      return false;
  }
}

bool interrupted_in_a_system_call(const void* ucontext) {
#if defined(__x86_64__)
  const auto& regs = static_cast<const ucontext_t*>(ucontext)->uc_mcontext.gregs;
  const uintptr_t ip = uintptr_t(regs[REG_RIP]);
  const CodeRangeTable* elf = process_code_ranges().current();
  if (elf == nullptr || ip < 2 || !elf->contains(ip - 2) || !elf->contains(ip + 1)) return false;
  const auto* code = reinterpret_cast<const uint8_t*>(ip);
  if (regs[REG_RAX] == -EINTR) return code[-2] == 0x0F && code[-1] == 0x05;
  return code[0] == 0x0F && code[1] == 0x05;  // rewound onto the `syscall` to be made again
#else
  (void)ucontext;
  return false;
#endif
}

bool restart_call_failed_by_handler(void* ucontext) {
#if defined(__x86_64__)
  auto& regs = static_cast<ucontext_t*>(ucontext)->uc_mcontext.gregs;
  if (regs[REG_RAX] != -EINTR) return false;
  uintptr_t ip = uintptr_t(regs[REG_RIP]);
  const CodeRangeTable* elf = process_code_ranges().current();
  if (elf == nullptr || ip < 7 || !elf->contains(ip - 7) || !elf->contains(ip - 1)) return false;
  const auto* code = reinterpret_cast<const uint8_t*>(ip);
  if (code[-2] != 0x0F || code[-1] != 0x05 || code[-7] != 0xB8) return false;  // mov $n, %eax; syscall
  int32_t number;
  std::memcpy(&number, code - 6, sizeof number);
  if (!fails_with_eintr_after_a_handler(number)) return false;
  // A relative sleep goes on with the time it had left, which the kernel wrote where the call asked.
  if (number == SYS_nanosleep && regs[REG_RSI] != 0) regs[REG_RDI] = regs[REG_RSI];
  constexpr greg_t kTimerAbstime = 1;
  if (number == SYS_clock_nanosleep && !(regs[REG_RSI] & kTimerAbstime) && regs[REG_R10] != 0)
    regs[REG_RDX] = regs[REG_R10];
  regs[REG_RIP] = greg_t(ip - 2);
  regs[REG_RAX] = greg_t(number);
  return true;
#else
  (void)ucontext;
  return false;
#endif
}

}  // namespace umbra
