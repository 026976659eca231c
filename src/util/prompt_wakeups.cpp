#include "util/prompt_wakeups.h"

#include <errno.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

namespace umbra {
namespace {

// The kernel's struct sched_attr (include/uapi/linux/sched/types.h), its first version: glibc declares no wrapper.
struct SchedAttr {
  uint32_t size;
  uint32_t sched_policy;
  uint64_t sched_flags;
  int32_t sched_nice;
  uint32_t sched_priority;
  uint64_t sched_runtime;
  uint64_t sched_deadline;
  uint64_t sched_period;
};
static_assert(sizeof(SchedAttr) == 48);

// The shortest slice the kernel grants (it clamps to 0.1-100 ms).
constexpr uint64_t kSliceNs = 100'000;

}  // namespace

bool prefer_prompt_wakeups(std::string& why) {
  SchedAttr attr{};
  if (syscall(SYS_sched_getattr, 0, &attr, sizeof attr, 0) != 0) {
    why = std::string("sched_getattr: ") + std::strerror(errno);
    return false;
  }
  if (attr.sched_policy != SCHED_OTHER) {
    why = "the thread's scheduling policy is not the ordinary one; left as it is";
    return false;
  }
  attr.size = sizeof attr;
  attr.sched_flags = 0;
  attr.sched_runtime = kSliceNs;  // the nice value read above is kept
  if (syscall(SYS_sched_setattr, 0, &attr, 0) != 0) {
    why = std::string("sched_setattr: ") + std::strerror(errno);
    return false;
  }
  return true;
}

}  // namespace umbra
