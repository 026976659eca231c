// Pushes profiles (each period's pprof) to Grafana Pyroscope's ingest API (pyroscope_ingest.h) from a thread of
// umbra's own, which never runs managed code, so that the program never waits on the network.
//
// Contract:
// - push() may be called from any thread but a hook; it only queues (at most kQueued profiles: a full queue drops
//   its oldest, counted) and never blocks on the network.
// - Each profile gets up to kAttempts attempts (a connection that fails, a timeout, an answer 5xx or 429), kBackoff
//   apart, doubled each time; each attempt has a connect timeout and a whole-request timeout. A profile given up
//   is counted; the first one is logged, the later ones only counted (stats()).
// - finish() waits at most until its deadline for the queue to empty, then aborts the attempt in flight and counts
//   what is left as abandoned: the program's end waits for pushes that long and no longer. join() then waits for
//   the thread (an attached session, before the runtime unloads umbra).
// - libcurl (curl_library.h) runs with CURLOPT_NOSIGNAL (no SIGALRM of its own in the program) and a write
//   function of its own: an answer's body never reaches the program's stdout.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

#include "profiler/pyroscope_ingest.h"
#include "report/report_stats.h"

namespace umbra {

class PyroscopePusher {
 public:
  struct Settings {
    std::string url;  // is_push_url
    std::string application;
    PushLabels labels;
    uint32_t sample_rate_hz = 100;
  };
  static constexpr size_t kQueued = 4;
  static constexpr int kAttempts = 3;
  static constexpr std::chrono::milliseconds kBackoff{1000};
  static constexpr std::chrono::milliseconds kConnectTimeout{3000};
  static constexpr std::chrono::milliseconds kRequestTimeout{10000};

  explicit PyroscopePusher(Settings settings);
  ~PyroscopePusher();
  PyroscopePusher(const PyroscopePusher&) = delete;
  PyroscopePusher& operator=(const PyroscopePusher&) = delete;

  void push(std::string pprof, uint64_t from_unix_ns, uint64_t until_unix_ns);
  // Waits at most until `deadline` for the queue to empty, pushing on afterwards (a report written while the
  // program may go on).
  void drain(std::chrono::steady_clock::time_point deadline);
  void finish(std::chrono::steady_clock::time_point deadline);
  void join();
  ReportStats::Push stats() const;
  const Settings& settings() const { return settings_; }

 private:
  struct Profile {
    std::string pprof;
    uint64_t from_unix_ns, until_unix_ns;
  };
  // One attempt: "" when Pyroscope took it; else why not, with `retry` set when another attempt may succeed.
  std::string send(const Profile& profile, bool& retry);
  void run();

  const Settings settings_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Profile> queue_;  // under mutex_
  bool sending_ = false;       // under mutex_: an attempt (or its backoff) is in flight
  bool finishing_ = false;     // under mutex_: no new profiles; give up when the deadline passes
  std::atomic<bool> abort_{false};  // the attempt in flight stops at once (the deadline passed)
  ReportStats::Push stats_{.pushed = 0, .failed = 0, .retries = 0, .dropped = 0, .abandoned = 0,
                           .first_failure = {}, .unread = {}};  // under mutex_
  std::thread thread_;
};

}  // namespace umbra
