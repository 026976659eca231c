// Whether a thread of this process is on a CPU at a sample (running, or ready to run and waiting for a CPU: the
// scheduler's R state; not waiting for anything else). A thread whose CPU time has not moved since the caller last
// read it has not run, which one clock read shows; only one that has run is asked of the scheduler, through
// /proc/self/task/TID/stat. So the threads that wait, most of a program's, cost one system call a sample.
// The stat files of up to kKept threads stay open and are read again from their start, which the kernel answers
// with a fresh reading: opening the file was two thirds of a reading's cost and the largest part of the sampler's
// own CPU time on busy threads. The program can see these descriptors, so they are kept out of its way: at most
// kKept, numbered from kLowestKept up (never the low numbers a program reopens itself, such as 0-2), closed only while
// they still hold the file opened (a number the program took over is left alone), and read only while they hold the
// thread's own file. A child forked without exec inherits them and never reads them; exec closes them.
// Contract: one thread at a time (the sampler's), never the thread asked about; no allocation, lock or log.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <optional>

namespace umbra {

class SchedulerStates {
 public:
  SchedulerStates() = default;
  ~SchedulerStates();
  SchedulerStates(const SchedulerStates&) = delete;
  SchedulerStates& operator=(const SchedulerStates&) = delete;

  // The scheduler's state letter ('R', 'S', 'D', ...), or nothing if the thread has ended or cannot be read.
  std::optional<char> state(pid_t tid);
  // Whether `tid`, whose CPU time was `last_cpu_ns` when the caller last read it and is `now_cpu_ns` now, is on a
  // CPU now. Where /proc cannot be read, a thread that has run since the last reading counts as on a CPU.
  bool on_cpu(pid_t tid, uint64_t last_cpu_ns, uint64_t now_cpu_ns);
  // The same, reading the clock: `last_cpu_ns` is set to the time read now (left as it is when the clock cannot be
  // read: an ended thread is not on a CPU).
  bool on_cpu(pid_t tid, uint64_t& last_cpu_ns);

  // Files open now (at most kKept), and opened so far.
  size_t open_files() const;
  uint64_t files_opened() const { return files_opened_; }

  static constexpr size_t kKept = 32;
  static constexpr int kLowestKept = 100;

 private:
  struct Kept {
    pid_t tid = 0;
    int fd = -1;
    dev_t dev = 0;  // the file opened, told apart from whatever the program may have put at its number since
    ino_t ino = 0;
  };
  void let_go(Kept& k);

  // Direct-mapped by thread id: a thread whose slot is taken replaces the file kept there.
  std::array<Kept, kKept> kept_{};
  uint64_t files_opened_ = 0;
};

}  // namespace umbra
