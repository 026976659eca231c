#include "profiler/pyroscope_pusher.h"

#include <pthread.h>

#include "profiler/curl_library.h"
#include "util/log.h"
#include "util/version.h"

namespace umbra {
namespace {

// The answer's body is not wanted; without a write function libcurl would print it on the program's stdout.
size_t discard(char*, size_t size, size_t count, void*) { return size * count; }

// Called by libcurl during a transfer, at least once a second: a non-zero answer aborts it.
int abort_if_asked(void* abort, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<std::atomic<bool>*>(abort)->load(std::memory_order_acquire) ? 1 : 0;
}

}  // namespace

PyroscopePusher::PyroscopePusher(Settings settings) : settings_(std::move(settings)) {
  thread_ = std::thread([this] { run(); });
}

PyroscopePusher::~PyroscopePusher() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    finishing_ = true;
    queue_.clear();
  }
  abort_.store(true, std::memory_order_release);
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void PyroscopePusher::push(std::string pprof, uint64_t from_unix_ns, uint64_t until_unix_ns) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (finishing_) return;
    if (queue_.size() == kQueued) {
      queue_.pop_front();
      ++*stats_.dropped;
    }
    queue_.push_back({std::move(pprof), from_unix_ns, until_unix_ns});
  }
  changed_.notify_all();
}

void PyroscopePusher::drain(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait_until(lock, deadline, [&] { return queue_.empty() && !sending_; });
}

void PyroscopePusher::finish(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(mutex_);
  finishing_ = true;
  changed_.notify_all();
  changed_.wait_until(lock, deadline, [&] { return queue_.empty() && !sending_; });
  *stats_.abandoned += queue_.size() + (sending_ ? 1 : 0);
  queue_.clear();
  abort_.store(true, std::memory_order_release);
  changed_.notify_all();
}

void PyroscopePusher::join() {
  if (thread_.joinable()) thread_.join();
}

ReportStats::Push PyroscopePusher::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void PyroscopePusher::run() {
  pthread_setname_np(pthread_self(), "umbra-push");
  for (;;) {
    Profile profile;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return !queue_.empty() || finishing_; });
      if (queue_.empty() || abort_.load(std::memory_order_acquire)) return;
      profile = std::move(queue_.front());
      queue_.pop_front();
      sending_ = true;
    }
    std::string why;
    auto backoff = kBackoff;
    for (int attempt = 1;; ++attempt) {
      bool retry = false;
      why = send(profile, retry);
      if (why.empty() || !retry || attempt == kAttempts || abort_.load(std::memory_order_acquire)) break;
      std::unique_lock<std::mutex> lock(mutex_);
      ++*stats_.retries;
      // finish() wakes this early; its deadline decides whether another attempt is made.
      changed_.wait_for(lock, backoff, [&] { return abort_.load(std::memory_order_acquire); });
      if (abort_.load(std::memory_order_acquire)) break;
      backoff *= 2;
    }
    // Counted under the mutex: once finish() has aborted (it holds the mutex then), it has counted this one as
    // abandoned, whatever came of it.
    bool first_failure = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      sending_ = false;
      if (abort_.load(std::memory_order_acquire)) {
        changed_.notify_all();
        return;
      }
      if (why.empty()) {
        ++*stats_.pushed;
      } else {
        ++*stats_.failed;
        first_failure = !stats_.first_failure;
        if (first_failure) stats_.first_failure = why;
      }
    }
    changed_.notify_all();
    if (first_failure)
      log::always("pushing to " + redacted_url(settings_.url) + " failed (" + why +
                  "); later periods are pushed still, and failures counted (stats.push)");
  }
}

std::string PyroscopePusher::send(const Profile& profile, bool& retry) {
  std::string error;
  const CurlLibrary* curl = load_curl(error);
  if (curl == nullptr) return error;
  CURL* easy = curl->easy_init();
  if (easy == nullptr) return "curl_easy_init failed";
  IngestRequest request{settings_.url,
                        settings_.application,
                        settings_.labels,
                        profile.from_unix_ns / 1000000000,
                        // Pyroscope wants until after from: a period shorter than a second still spans one.
                        std::max(profile.until_unix_ns / 1000000000 + (profile.until_unix_ns % 1000000000 ? 1 : 0),
                                 profile.from_unix_ns / 1000000000 + 1),
                        settings_.sample_rate_hz};
  const std::string url = ingest_url(request);
  const std::string agent = std::string("umbra/") + umbra_version();
  curl_mime* form = curl->mime_init(easy);
  curl_mimepart* part = curl->mime_addpart(form);
  curl->mime_name(part, "profile");
  curl->mime_filename(part, "profile.pb.gz");
  curl->mime_type(part, "application/octet-stream");
  curl->mime_data(part, profile.pprof.data(), profile.pprof.size());
  // No "Expect: 100-continue": a server that does not answer it would cost a second per push.
  curl_slist* headers = curl->slist_append(nullptr, "Expect:");
  curl->easy_setopt(easy, CURLOPT_URL, url.c_str());
  curl->easy_setopt(easy, CURLOPT_MIMEPOST, form);
  curl->easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
  curl->easy_setopt(easy, CURLOPT_USERAGENT, agent.c_str());
  curl->easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl->easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, long(kConnectTimeout.count()));
  curl->easy_setopt(easy, CURLOPT_TIMEOUT_MS, long(kRequestTimeout.count()));
  curl->easy_setopt(easy, CURLOPT_WRITEFUNCTION, &discard);
  curl->easy_setopt(easy, CURLOPT_NOPROGRESS, 0L);
  curl->easy_setopt(easy, CURLOPT_XFERINFOFUNCTION, &abort_if_asked);
  curl->easy_setopt(easy, CURLOPT_XFERINFODATA, &abort_);
  CURLcode code = curl->easy_perform(easy);
  long status = 0;
  if (code == CURLE_OK) curl->easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
  curl->easy_cleanup(easy);
  curl->mime_free(form);
  curl->slist_free_all(headers);
  if (code != CURLE_OK) {
    retry = code != CURLE_ABORTED_BY_CALLBACK && code != CURLE_URL_MALFORMAT && code != CURLE_UNSUPPORTED_PROTOCOL;
    return curl->easy_strerror(code);
  }
  if (status >= 200 && status < 300) return "";
  retry = status >= 500 || status == 429;
  return "HTTP status " + std::to_string(status);
}

}  // namespace umbra
