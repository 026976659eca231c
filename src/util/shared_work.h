// A few threads sharing one recursive job (converting a tree of millions of nodes at exit): a worker in the middle of
// its part offers a piece of it whenever another worker is idle, and before using the piece's result it completes
// it, running it itself if nobody took it and helping with other pieces while it waits. Pieces are offered only
// when they would be taken at once, so a job that nobody shares pays one relaxed load per offer asked about.
//
// Worker 0 is the thread that calls into the job; workers 1..helpers() are threads of this object, each on a large
// stack (util/large_stack.h: pieces recurse as deep as the tree), with every signal blocked. Idle helpers spin
// for about a millisecond, then poll every 50-100 us: keep the object alive only while a job runs. Not for hot
// paths: offering takes a mutex.
#pragma once

#include <pthread.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

#include "util/large_stack.h"

namespace umbra {

class SharedWork {
 public:
  class Piece {
   public:
    virtual ~Piece() = default;
    // Runs on exactly one worker, `worker` being its number (0..helpers()).
    virtual void run(unsigned worker) = 0;

   private:
    friend class SharedWork;
    enum State : int { kOffered, kTaken, kDone };
    std::atomic<int> state_{kDone};
    unsigned offered_by_ = 0;
  };

  // Starts up to `helpers` threads, fewer where threads cannot be had (helpers() says how many), and returns once
  // each is ready to take a piece.
  explicit SharedWork(unsigned helpers);
  ~SharedWork();
  SharedWork(const SharedWork&) = delete;
  SharedWork& operator=(const SharedWork&) = delete;

  unsigned helpers() const { return unsigned(threads_.size()); }
  // Pieces run by another worker than the one that offered them, so far.
  uint64_t shared() const { return shared_.load(std::memory_order_relaxed); }
  // True while some worker is idle and no piece waits for it: a piece offered now would be taken at once.
  bool wanted() const { return idle_.load(std::memory_order_relaxed) > offered_.load(std::memory_order_relaxed); }
  // By `worker`; `piece` must stay alive until complete(piece) returns.
  void offer(Piece& piece, unsigned worker);
  // Returns once `piece` has run: here, as `worker`, if nobody took it; else after running others' pieces here
  // while this worker's stack is less than kStackForOthers deep (a piece runs on top of the recursion it
  // interrupts; the large stack is sized for one recursion as deep as the deepest tree).
  void complete(Piece& piece, unsigned worker);

  // Helper threads that could be used on this machine beside the caller: the CPUs this process may run on, less
  // one, at most `most`.
  static unsigned useful_helpers(unsigned most);

 private:
  static constexpr uintptr_t kStackForOthers = kLargeStackBytes / 4;

  static void* helper_main(void* start);
  void help(unsigned worker);
  // Takes the oldest offered piece (the largest, usually: offered nearest the tree's root) for `worker`, or null.
  Piece* take(unsigned worker);
  void run_taken(Piece& piece, unsigned worker);
  // For a worker counted idle: runs the oldest offered piece, if any, uncounted meanwhile.
  bool run_one_offered(unsigned worker);

  std::mutex mutex_;
  std::deque<Piece*> pieces_;  // offered, not yet taken
  std::atomic<int> idle_{0};
  std::atomic<int> offered_{0};
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> shared_{0};
  std::atomic<size_t> started_{0};  // helpers counted idle
  std::vector<pthread_t> threads_;
  // Where each worker's stack stood when it joined (worker 0: when this was made); each entry read by its worker.
  std::vector<uintptr_t> stack_start_;
  bool may_take(unsigned worker) const;
};

}  // namespace umbra
