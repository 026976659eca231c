#include "util/shared_work.h"

#include <sched.h>
#include <signal.h>
#include <time.h>

#include <algorithm>

#include "util/large_stack.h"

namespace umbra {
namespace {

// About a millisecond of polling before the first sleep, then tens of microseconds after each: long enough for a
// worker converting nodes (a fraction of a microsecond each) to see this one idle and offer it a piece.
constexpr unsigned kSpinsBeforeSleep = 20'000;
constexpr unsigned kSpinsAfterSleep = 500;

struct HelperStart {
  SharedWork* work;
  unsigned worker;
};

void pause_briefly() { __builtin_ia32_pause(); }

void sleep_50us() {
  timespec delay{0, 50'000};
  nanosleep(&delay, nullptr);
}

}  // namespace

SharedWork::SharedWork(unsigned helpers) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, kLargeStackBytes);
  // The program's signals are for its own threads: helpers start with every signal blocked.
  sigset_t all, before;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &before);
  threads_.reserve(helpers);
  for (unsigned i = 1; i <= helpers; ++i) {
    auto* start = new HelperStart{this, i};
    pthread_t thread;
    if (pthread_create(&thread, &attr, &SharedWork::helper_main, start) != 0) {
      delete start;
      break;
    }
    threads_.push_back(thread);
  }
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  pthread_attr_destroy(&attr);
  while (started_.load(std::memory_order_acquire) < threads_.size()) sched_yield();
}

SharedWork::~SharedWork() {
  stopping_.store(true, std::memory_order_relaxed);
  for (pthread_t thread : threads_) pthread_join(thread, nullptr);
}

unsigned SharedWork::useful_helpers(unsigned most) {
  cpu_set_t cpus;
  if (sched_getaffinity(0, sizeof cpus, &cpus) != 0) return 0;
  int usable = CPU_COUNT(&cpus);
  return usable <= 1 ? 0 : std::min(most, unsigned(usable - 1));
}

void* SharedWork::helper_main(void* arg) {
  auto* start = static_cast<HelperStart*>(arg);
  SharedWork* work = start->work;
  unsigned worker = start->worker;
  delete start;
  pthread_setname_np(pthread_self(), "umbra-report");
  work->help(worker);
  return nullptr;
}

void SharedWork::offer(Piece& piece) {
  std::lock_guard<std::mutex> lock(mutex_);
  piece.state_.store(Piece::kOffered, std::memory_order_relaxed);
  pieces_.push_back(&piece);
  offered_.fetch_add(1, std::memory_order_relaxed);
}

SharedWork::Piece* SharedWork::take() {
  if (offered_.load(std::memory_order_relaxed) == 0) return nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  if (pieces_.empty()) return nullptr;
  Piece* piece = pieces_.front();
  pieces_.pop_front();
  offered_.fetch_sub(1, std::memory_order_relaxed);
  piece->state_.store(Piece::kTaken, std::memory_order_relaxed);
  shared_.fetch_add(1, std::memory_order_relaxed);
  return piece;
}

void SharedWork::run_taken(Piece& piece, unsigned worker) {
  piece.run(worker);
  // The piece's owner may free it as soon as it sees this: nothing touches it after.
  piece.state_.store(Piece::kDone, std::memory_order_release);
}

void SharedWork::complete(Piece& piece, unsigned worker) {
  if (piece.state_.load(std::memory_order_acquire) == Piece::kOffered) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (piece.state_.load(std::memory_order_relaxed) == Piece::kOffered) {
      pieces_.erase(std::find(pieces_.begin(), pieces_.end(), &piece));
      offered_.fetch_sub(1, std::memory_order_relaxed);
      piece.state_.store(Piece::kTaken, std::memory_order_relaxed);
      lock.unlock();
      run_taken(piece, worker);
      return;
    }
  }
  idle_.fetch_add(1, std::memory_order_relaxed);
  while (piece.state_.load(std::memory_order_acquire) != Piece::kDone) {
    if (Piece* other = take()) {
      idle_.fetch_sub(1, std::memory_order_relaxed);
      run_taken(*other, worker);
      idle_.fetch_add(1, std::memory_order_relaxed);
    } else {
      pause_briefly();
    }
  }
  idle_.fetch_sub(1, std::memory_order_relaxed);
}

void SharedWork::help(unsigned worker) {
  idle_.fetch_add(1, std::memory_order_relaxed);
  started_.fetch_add(1, std::memory_order_release);
  unsigned polls = 0;
  while (!stopping_.load(std::memory_order_relaxed)) {
    if (Piece* piece = take()) {
      idle_.fetch_sub(1, std::memory_order_relaxed);
      run_taken(*piece, worker);
      idle_.fetch_add(1, std::memory_order_relaxed);
      polls = 0;
    } else if (++polls < kSpinsBeforeSleep) {
      pause_briefly();
    } else {
      // Between jobs, or while the other workers' parts cannot be split: out of the CPUs' way, and not counted
      // idle meanwhile, so that nobody offers a piece only to take it back.
      idle_.fetch_sub(1, std::memory_order_relaxed);
      sleep_50us();
      idle_.fetch_add(1, std::memory_order_relaxed);
      polls = kSpinsBeforeSleep - kSpinsAfterSleep;
    }
  }
  idle_.fetch_sub(1, std::memory_order_relaxed);
}

}  // namespace umbra
