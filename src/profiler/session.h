// One profiling session: owns every layer (shadow pool, thread registry, names) and writes the report once,
// at whichever exit comes first (Shutdown, exit(), a fatal signal).
// The profiler callback class forwards to it; nothing here runs on the hooks' path.
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "clr/corprof.h"
#include "hooks/coarse_clock.h"
#include "hooks/shadow_pool.h"
#include "hooks/tick_clock.h"
#include "merge/period_counts.h"
#include "names/function_names.h"
#include "names/hook_selection.h"
#include "profiler/config.h"
#include "profiler/periodic_reports.h"
#include "profiler/process_identity.h"
#include "profiler/pyroscope_pusher.h"
#include "profiler/report_writer_process.h"
#include "profiler/ready_to_run_windows.h"
#include "report/report.h"
#include "snapshot/native_symbols.h"
#include "sampler/sampler.h"
#include "threads/thread_registry.h"
#include "util/shared_work.h"

namespace umbra {

class Session {
 public:
  Session(Config config, clr::ICorProfilerInfo10* info);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Sets the event mask and installs the hooks. Failure leaves the program unprofiled. An attached session
  // (Config::attached) only sets the event mask here: its sampler starts with start_sampling().
  clr::HRESULT start();
  // An attached session, once the runtime has completed the attach.
  void start_sampling();
  // An attached session's end, on umbra's own thread (never one that runs managed code): the sampler stops and
  // its thread exits, then (after finish) the signal handlers it installed are put back. Returns "" once nothing
  // of umbra's can be reached from the program any more, else why something must stay.
  void stop_sampling_and_wait();
  std::string release_signal_handlers();

  ThreadRegistry& threads() { return threads_; }
  FunctionNames& names() { return names_; }
  const Config& config() const { return config_; }
  clr::ICorProfilerInfo10* info() { return info_; }
  // Focused shadow mode (UMBRA_HOOKS_FOR): which methods have hooks; null when every method has them.
  HookSelection* hook_selection() { return hook_selection_.get(); }
  // Focused shadow mode keeping precompiled code: hooks are off while a module loads; null otherwise.
  ReadyToRunWindows* ready_to_run_windows() { return ready_to_run_windows_.get(); }

  // Writes the report unless it was written already. `trigger` says which exit path got here first.
  // `runtime_usable` is false once the runtime may be torn down: names then come from the cache only.
  // A second caller waits until the first has written. A provisional report may be replaced by a later one.
  // Once periodic reports are on (--every, --push, or one was asked for), the last period's report is written (and
  // pushed) first, and the report of the whole run is the sum of the periods.
  void finish(const char* trigger, bool runtime_usable, bool provisional = false);

  // The report of the period since the previous one (<prefix>.p<n>.*), pushed when pushing; on umbra's periodic
  // thread (periodic_reports.h) while the program runs. `trigger`: "period_every" or "period_request".
  PeriodicReports::Written write_period_report(const char* trigger);
  // An attached session's end, after finish(): waits for umbra's periodic and push threads to return.
  void join_report_threads();

 private:
  // With `lens`, counts are read through it (merge/period_counts.h): a period's, or the whole run's as the last
  // period read it.
  // With `work`, its helpers convert parts of large trees (without a lens only).
  Report build_report(const char* trigger, PeriodCounts::Lens* lens = nullptr, SharedWork* work = nullptr);
  void add_shadow_threads(Report& report, PeriodCounts::Lens* lens, SharedWork* work);
  // Helper threads worth starting for the report at exit: none unless its trees are large enough to share.
  unsigned report_helpers_wanted();
  void add_sampled_threads(Report& report, PeriodCounts::Lens* lens);
  ReportThread sampled_thread(const ThreadRegistry::Snapshot& entry, PeriodCounts::Lens* lens);
  // Under report_mutex_, on a large stack: builds, writes and pushes the period that ends now.
  PeriodicReports::Written write_period_locked(const char* trigger);
  bool periods_active() const;  // under report_mutex_
  std::string periods_line(uint32_t periods, const std::optional<ReportStats::Push>& push) const;
  void start_report_threads();
  uint64_t unix_ns_at(uint64_t monotonic) const { return uint64_t(int64_t(monotonic) + unix_minus_monotonic_ns_); }
  // Whether the last report is handed to a copy of the process (profiler/report_writer_process.h): a descendant of
  // the launched program ending normally, with no periodic report or push under way.
  bool report_written_after_exit(const char* trigger, bool runtime_usable, bool provisional) const;
  ReportWriter copy_for_report();
  // A thread's CPU time for the report: `last_read` if it has ended, read now otherwise (or as read when the process
  // was copied for its report: the copy cannot read the original's threads).
  std::optional<uint64_t> thread_cpu(pid_t tid, bool ended, uint64_t last_read) const;
  // The report's "stats" (session_stats.cpp).
  ReportStats report_stats(const char* trigger, size_t threads_reported);
  void print_verify_summary();
  clr::HRESULT start_shadow();
  clr::HRESULT start_sampled();
  clr::HRESULT install_hooks();
  void start_coarse_clock();
  uint32_t ticks_between_checks(uint32_t every_ms) const;
  void stop_coarse_clock();

  Config config_;
  clr::ICorProfilerInfo10* info_;
  TickCalibration clock_;
  ShadowPool pool_;
  ThreadRegistry threads_;
  FunctionNames names_;
  NativeSymbols native_symbols_;
  std::string runtime_version_;
  ProcessIdentity process_;
  std::unique_ptr<HookSelection> hook_selection_;
  std::unique_ptr<ReadyToRunWindows> ready_to_run_windows_;
  std::unique_ptr<Sampler> sampler_;
  CoarseClock coarse_clock_;
  std::mutex clock_mutex_;
  bool clock_stopped_ = false;  // under clock_mutex_: the session is over, the clock never starts again
  std::mutex finish_mutex_;
  bool finished_ = false;  // under finish_mutex_
  // One report at a time: the periodic thread's and the exit's. Taken after finish_mutex_, never before it.
  std::mutex report_mutex_;
  PeriodCounts period_counts_;    // under report_mutex_
  uint32_t periods_written_ = 0;  // under report_mutex_
  uint64_t period_start_ns_ = 0;  // under report_mutex_: monotonic
  bool reports_over_ = false;     // under report_mutex_: the final report is written
  int64_t unix_minus_monotonic_ns_ = 0;
  const pid_t pid_ = getpid();  // the program's, also in a copy made for the report
  // Set only in that copy: the live threads' CPU times when it was made.
  std::optional<std::unordered_map<pid_t, uint64_t>> cpu_at_copy_;
  std::unique_ptr<PyroscopePusher> pusher_;
  std::unique_ptr<PeriodicReports> periodic_;
};

}  // namespace umbra
