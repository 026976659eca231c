// umbra's thread for reports while the program runs: one at the end of every period (--every), and one whenever
// `umbra dump PID` asks for it on the control FIFO (report_request.h). Each report holds the period since the one
// before (the session's write_period_report). The thread is umbra's own and never runs managed code: reports are
// built and written there, never on a thread of the program's, never in a hook.
// Periods follow the clock from start(): a report that takes longer than a period is followed by the next period's
// end, not by a burst of catch-up reports.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace umbra {

class PeriodicReports {
 public:
  // What writing a period's report came to, for the answer to `umbra dump`.
  struct Written {
    std::string error;  // empty when written
    uint32_t index = 0;
    uint64_t duration_ns = 0;
    std::vector<std::string> files;
  };
  using WriteReport = std::function<Written(const char* trigger)>;

  // `every_ms` 0: reports on request only. `thread_setup` runs on the thread before its first report (the
  // runtime's InitializeCurrentThread).
  PeriodicReports(uint32_t every_ms, WriteReport write, std::function<void()> thread_setup);
  ~PeriodicReports();
  PeriodicReports(const PeriodicReports&) = delete;
  PeriodicReports& operator=(const PeriodicReports&) = delete;

  // Makes the control FIFO (one line at info level when it cannot: reports then come every period only) and
  // starts the thread.
  void start();
  // From the session's end, on any thread: the FIFO is removed, and the thread writes nothing more and returns.
  // Does not wait.
  void stop();
  // A provisional report (an unhandled exception, a signal the program handles): the process may end without
  // another word to umbra, so the FIFO goes now (`umbra dump` cannot ask any more); reports every period go on.
  void remove_fifo();
  // After stop(): waits for the thread, then removes the FIFO (an attached session, before umbra is unloaded).
  void join();
  // Where `umbra dump` finds this process ("" if there is no FIFO).
  const std::string& fifo_path() const { return fifo_path_; }

 private:
  void run();
  void answer(const std::string& request);
  void set_up_once();
  bool open_fifo();

  const uint32_t every_ms_;
  const WriteReport write_;
  const std::function<void()> thread_setup_;
  std::string fifo_path_;
  int fifo_fd_ = -1;        // the FIFO's reading end
  int fifo_writer_fd_ = -1;  // a writing end of umbra's own: the reading end never sees a hang-up
  int wake_fd_ = -1;        // an eventfd: stop()
  std::atomic<bool> stopping_{false};
  bool set_up_ = false;  // the thread's own
  std::thread thread_;
};

}  // namespace umbra
