// One thread's exception in progress, as the exception callbacks report it: whether an exception is being
// dispatched, whether its search passed the thread's bottom frame without finding a catcher (then it is
// unhandled and the runtime will end the process), and the frames being unwound. Unwinds nest: an exception thrown
// and caught inside a finally unwinds within the outer one.
//
// Contract: the owner thread only (its exception callbacks), like the shadow stack it belongs to; the sampler reads
// active() only while the owner is suspended. Never blocks, allocates, logs or throws.
#pragma once

#include <array>
#include <cstdint>

#include "clr/corprof.h"

namespace umbra {

class ExceptionTracking {
 public:
  static constexpr uint32_t kNoFrame = ~uint32_t{0};
  static constexpr uint32_t kFilterFunclet = kNoFrame - 1;  // an unwind of a running filter: no frame of its own
  struct Unwinding {
    clr::FunctionID function;
    uint32_t frame;  // index of the shadow frame being unwound, or kNoFrame
  };

  void thrown() {
    active_ = true;
    awaiting_first_unwind_ = true;
    searching_ = true;
    search_reached_bottom_ = false;
    catcher_found_ = false;
  }
  void search_reached_bottom() { search_reached_bottom_ = true; }
  void catcher_found() { catcher_found_ = true; }
  // The search left a frame. Leaving the bottom frame without a catcher: .NET 8 ends the process now, with no
  // unwind, so this is the last moment to say the exception is unhandled (true once).
  bool search_left() {
    bool unhandled = searching_ && search_reached_bottom_ && !catcher_found_;
    if (unhandled) searching_ = false;
    return unhandled;
  }
  // The catch block has finished: the exception is over.
  void caught() { active_ = false; }
  bool active() const { return active_; }

  // An unwind begins at `frame`. Returns false when unwinds nest deeper than tracked (that one will not pop its
  // frame). `unhandled` is set once, at the first unwind of a search that found no catcher above the bottom frame.
  bool begin_unwind(clr::FunctionID function, uint32_t frame, bool& unhandled) {
    awaiting_first_unwind_ = false;
    // Unwinding runs downwards: an unwind still pending at or above this frame never got its leave (the runtime
    // caught the exception in native code just below it) and never will; nor will a filter's (.NET 9 and 10 send
    // none). Real frame indexes are below kFilterFunclet.
    auto superseded = [frame](const Unwinding& pending) {
      return pending.frame == kFilterFunclet ||
             (frame < kFilterFunclet && pending.frame < kFilterFunclet && pending.frame >= frame);
    };
    while (count_ > 0 && superseded(unwinding_[count_ - 1])) --count_;
    unhandled = searching_ && search_reached_bottom_ && !catcher_found_;
    searching_ = false;
    if (count_ == unwinding_.size()) return false;
    unwinding_[count_++] = {function, frame};
    return true;
  }
  // The unwind of a shadow frame that ends now, if any. .NET 9 and 10 send one unwind leave right after a managed throw,
  // before any unwind enter: it ends nothing. A filter funclet's unwind ends no frame either.
  bool end_unwind(Unwinding& ended) {
    if (awaiting_first_unwind_ || count_ == 0) return false;
    ended = unwinding_[--count_];
    return ended.frame != kFilterFunclet;
  }
  // The catcher got an unwind enter but gets no unwind leave: forget it.
  void catcher_entered(clr::FunctionID function) {
    if (count_ > 0 && unwinding_[count_ - 1].function == function) --count_;
  }

  // Frames unwound while the dispatch's frames were above them: .NET 9 runs the second pass in managed code, above
  // the frames it unwinds, and those calls return after the unwind leave. The frame stays, marked unwound, until
  // the catch pops it with the dispatch's frames. Returns false past the limit (then it is popped at once).
  bool keep_unwound(uint32_t frame) {
    if (unwound_count_ == unwound_.size()) return false;
    unwound_[unwound_count_++] = frame;
    return true;
  }
  bool is_unwound(uint32_t frame) const {
    for (uint32_t k = 0; k < unwound_count_; ++k)
      if (unwound_[k] == frame) return true;
    return false;
  }
  bool any_unwound() const { return unwound_count_ != 0; }
  // The shadow stack is cut to `depth` frames: unwound frames at or above it are gone.
  void popped_to(uint32_t depth) {
    for (uint32_t k = unwound_count_; k-- > 0;)
      if (unwound_[k] >= depth) unwound_[k] = unwound_[--unwound_count_];
  }
  // The lowest unwound frame above `frame`, or `otherwise`: from there up the frames are the exception's dispatch.
  uint32_t lowest_unwound_above(uint32_t frame, uint32_t otherwise) const {
    uint32_t lowest = otherwise;
    for (uint32_t k = 0; k < unwound_count_; ++k)
      if (unwound_[k] > frame && unwound_[k] < lowest) lowest = unwound_[k];
    return lowest;
  }

  void filter_enter(clr::FunctionID function) {
    if (filter_depth_ < filters_.size()) filters_[filter_depth_] = function;
    ++filter_depth_;
  }
  void filter_leave() {
    if (filter_depth_ > 0) --filter_depth_;
  }
  // Whether `function` is the filter running now: its unwind and search are the funclet's, not its method frame's.
  bool in_filter_of(clr::FunctionID function) const {
    return filter_depth_ > 0 && filter_depth_ <= filters_.size() && filters_[filter_depth_ - 1] == function;
  }

 private:
  std::array<Unwinding, 16> unwinding_{};
  uint32_t count_ = 0;
  std::array<uint32_t, 64> unwound_{};  // in no order
  uint32_t unwound_count_ = 0;
  std::array<clr::FunctionID, 4> filters_{};
  uint32_t filter_depth_ = 0;
  bool awaiting_first_unwind_ = false;
  bool active_ = false;
  bool searching_ = false;
  bool search_reached_bottom_ = false;
  bool catcher_found_ = false;
};

}  // namespace umbra
