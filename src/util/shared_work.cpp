#include "util/shared_work.h"

#include <sched.h>
#include <signal.h>
#include <time.h>

#include <algorithm>

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

void pause_briefly() {
#if defined(__x86_64__)
  __builtin_ia32_pause();
#else
  sched_yield();
#endif
}

void sleep_50us() {
  timespec delay{0, 50'000};
  nanosleep(&delay, nullptr);
}

}  // namespace

SharedWork::SharedWork(unsigned helpers) : stack_start_(helpers + 1, 0) {
  stack_start_[0] = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
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
  work->stack_start_[worker] = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  pthread_setname_np(pthread_self(), "umbra-report");
  work->help(worker);
  return nullptr;
}

void SharedWork::offer(Piece& piece, unsigned worker) {
  std::lock_guard<std::mutex> lock(mutex_);
  piece.offered_by_ = worker;
  piece.state_.store(Piece::kOffered, std::memory_order_relaxed);
  pieces_.push_back(&piece);
  offered_.fetch_add(1, std::memory_order_relaxed);
}

bool SharedWork::run_one_offered(unsigned worker) {
  Piece* piece = take(worker);
  if (piece == nullptr) return false;
  idle_.fetch_sub(1, std::memory_order_relaxed);
  run_taken(*piece, worker);
  idle_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

bool SharedWork::may_take(unsigned worker) const {
  uintptr_t here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  return stack_start_[worker] < here || stack_start_[worker] - here < kStackForOthers;
}

SharedWork::Piece* SharedWork::take(unsigned worker) {
  if (offered_.load(std::memory_order_relaxed) == 0) return nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  if (pieces_.empty()) return nullptr;
  Piece* piece = pieces_.front();
  pieces_.pop_front();
  offered_.fetch_sub(1, std::memory_order_relaxed);
  piece->state_.store(Piece::kTaken, std::memory_order_relaxed);
  if (piece->offered_by_ != worker) shared_.fetch_add(1, std::memory_order_relaxed);
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
  // Counted idle only while it could take a piece: nobody offers one to a worker whose stack is too deep.
  const bool can_help = may_take(worker);
  if (can_help) idle_.fetch_add(1, std::memory_order_relaxed);
  unsigned polls = 0;
  while (piece.state_.load(std::memory_order_acquire) != Piece::kDone) {
    if (can_help && run_one_offered(worker)) {
      polls = 0;
    } else if (++polls < kSpinsBeforeSleep) {
      pause_briefly();
    } else {
      sched_yield();  // the piece is long (a file being written): leave the CPU to whoever can use it
    }
  }
  if (can_help) idle_.fetch_sub(1, std::memory_order_relaxed);
}

void SharedWork::help(unsigned worker) {
  idle_.fetch_add(1, std::memory_order_relaxed);
  started_.fetch_add(1, std::memory_order_release);
  unsigned polls = 0;
  while (!stopping_.load(std::memory_order_relaxed)) {
    if (run_one_offered(worker)) {
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
