#include "sampler/sampler.h"

#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "hooks/tick_clock.h"
#include "sampler/shadow_sampling.h"
#include "snapshot/code_ranges.h"
#include "snapshot/native_capture.h"
#include "snapshot/thread_cpu_time.h"
#include "util/log.h"
#include "util/prompt_wakeups.h"

namespace umbra {

Sampler::Sampler(clr::ICorProfilerInfo10& info, ThreadRegistry& threads, FunctionNames& names,
                 SamplerOptions options)
    : info_(info), threads_(threads), names_(names), options_(options) {
  bool sampled_mode = options_.shadows == nullptr;
  bool signal_walker = sampled_mode && options_.walker == SamplerOptions::Walker::kSignal;
  if (sampled_mode && !signal_walker) attribution_.emplace(info, names);
  if (!sampled_mode) reconciliation_.emplace(names);
  if (signal_walker || (!sampled_mode && (options_.stacks_by_signal || options_.full_shadow_stacks_by_signal)))
    signal_sampling_.emplace(info, threads, scheduler_states_, options_.shadows, names,
                             reconciliation_ ? &reconciliation_->splice_votes() : nullptr,
                             options_.full_shadow_stacks_by_signal);
  StackTick::Options walk;
  walk.skip_unchanged = sampled_mode && !signal_walker;
  walk.keep_walks = sampled_mode;
  walk.cpu_states = sampled_mode && !signal_walker;  // shadow mode's samples find it for themselves
  walk.signal_walks = signal_walker;
  walk.interval_ms = options_.interval_ms;
  walk.native_tops = false;  // set by start(), once a signal is known to be free
  stack_tick_.emplace(info, threads, scheduler_states_, walk);
}

// Sampled mode without a free signal: a suspension and a walk at every tick.
void Sampler::use_suspending_walker() {
  signal_sampling_.reset();
  options_.walker = SamplerOptions::Walker::kSuspend;
  attribution_.emplace(info_, names_);
  StackTick::Options walk;
  walk.skip_unchanged = walk.keep_walks = walk.cpu_states = true;
  walk.interval_ms = options_.interval_ms;
  stack_tick_.emplace(info_, threads_, scheduler_states_, walk);
}

Sampler::~Sampler() {
  stop();
  if (thread_.joinable()) thread_.detach();  // never reached in practice: the session lives until exit
}

void Sampler::start() {
  if (options_.shadows == nullptr) {
    native_tops_ = install_native_capture_handler() != 0;
    if (!native_tops_ && signal_sampling_) {
      log::always("no free real-time signal: sampled mode suspends the runtime at every tick, so samples land only "
                  "at its safe points, and native frames above managed code are not captured");
      use_suspending_walker();
    } else if (!native_tops_) {
      log::always("no free real-time signal: native frames above managed code are not captured");
    }
    if (!signal_sampling_) stack_tick_->enable_native_tops(native_tops_);
  } else if (signal_sampling_) {
    native_tops_ = install_native_capture_handler() != 0;
    if (!native_tops_ && options_.stacks_by_signal) {
      log::always("no free real-time signal: methods without hooks get no samples (each sample goes to the "
                  "innermost hooked method)");
      signal_sampling_.reset();
    } else if (!native_tops_) {
      log::always("no free real-time signal: native frames above managed code are not captured");
      signal_sampling_.reset();
    }
  }
  thread_ = std::thread([this] { run(); });
}

void Sampler::stop() {
  stopping_.store(true, std::memory_order_release);
  std::lock_guard<std::mutex> lock(tree_mutex_);
  stopped_ = true;
}

void Sampler::stop_and_join() {
  stop();
  if (thread_.joinable()) thread_.join();
}

std::string Sampler::release_native_tops(std::chrono::milliseconds wait) {
  if (!native_tops_) return "";
  // A thread that is not scheduled (a stopped process, an overloaded machine) takes its signal late: wait for it.
  auto deadline = std::chrono::steady_clock::now() + wait;
  while (!threads_.native_captures_settled() || native_capture_signal_pending() || native_capture_handler_running()) {
    if (std::chrono::steady_clock::now() > deadline)
      return "a thread has not taken umbra's native-frame signal yet, so its handler must stay";
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (!uninstall_native_capture_handler())
    return "a signal handler installed after umbra's sits on one of its signals and may call it";
  // A handler that has just left the count still has its last instructions to run in umbra's code: those few
  // instructions, not a descheduled thread's whole answer, are what this grace covers.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  if (native_capture_handler_running()) return "a thread is still inside umbra's native-frame signal handler";
  native_tops_ = false;
  return "";
}

SamplerStats Sampler::stats() {
  std::lock_guard<std::mutex> lock(tree_mutex_);
  SamplerStats s = stats_;
  s.native_tops = native_tops_;
  return s;
}

void Sampler::run() {
  pthread_setname_np(pthread_self(), "umbra-sampler");
  if (!clr::succeeded(info_.InitializeCurrentThread())) log::debug("InitializeCurrentThread failed");
  // The executable mappings were first read at start-up, before the runtime mapped its code heaps.
  process_code_ranges().refresh_executable(0);
  // Ticks on time even beside a busy thread (util/prompt_wakeups.h).
  if (std::string why; !prefer_prompt_wakeups(why)) log::debug("the sampler keeps the ordinary time slice: {}", why);
  // Each interval is drawn uniformly from [0.5, 1.5] x the mean: a fixed period phase-locks with periodic work
  // (a 10 ms tick over a 3 ms + 1 ms loop samples each half exactly equally).
  uint64_t seed = monotonic_ns() | 1;
  auto next = std::chrono::steady_clock::now();
  const auto mean = std::chrono::microseconds(uint64_t(options_.interval_ms) * 1000);
  uint64_t late_ns = 0;
  while (!stopping_.load(std::memory_order_acquire)) {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    next += mean / 2 + std::chrono::microseconds(seed % uint64_t(mean.count() + 1));
    tick(late_ns);
    auto now = std::chrono::steady_clock::now();
    if (next < now) next = now;  // a slow tick is not followed by a burst of catch-up ticks
    std::this_thread::sleep_until(next);
    late_ns = uint64_t(std::max<int64_t>(
        0, std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - next).count()));
  }
}

bool Sampler::snapshot_due() const {
  if (attribution_) return true;  // the suspending walker walks at every tick
  // Every tick until a walk has met the threads that started before umbra heard of them: a suspension refused
  // (the runtime's own in progress, a GC) must not leave them unsampled until the next check, seconds later.
  if (options_.shadows == nullptr && !threads_met_) return true;
  // Threads whose stacks by signal could not be trusted are sampled from the walks of every tick.
  if (signal_sampling_ && options_.shadows == nullptr && signal_sampling_->threads_sampled_by_snapshot() > 0) return true;
  return options_.reconcile_every != 0 && tick_index_ % options_.reconcile_every == 0;
}

void Sampler::tick(uint64_t late_ns) {
  uint64_t start_ns = monotonic_ns();
  ++tick_index_;
  SamplerStats tick;
  tick.ticks = 1;
  tick.late_ns_total = late_ns;
  tick.late_ns_max = late_ns;
  // The samples counted before the walk are in the trees already: their stats are added at once, under the lock
  // the report reads both with, so that a stop before the rest of the tick leaves the two in agreement.
  auto count_before_walk = [&] {
    stats_.add_tick(tick);
    tick = SamplerStats{};
  };
  uint64_t shadow_sample_ns = 0;
  std::vector<uintptr_t> native_ips;  // this tick's stacks', named once the tree's lock is released
  if (signal_sampling_) {
    signal_sampling_->capture(tick_index_, options_.interval_ms);
    tick.shadow_sample_ns_total = shadow_sample_ns = monotonic_ns() - start_ns;
    // Counted now: the suspension below (if due) asks the threads again, into the same buffers.
    {
      std::lock_guard<std::mutex> lock(tree_mutex_);
      if (stopped_) return;
      signal_sampling_->attribute(tick);
      count_before_walk();
      native_ips = signal_sampling_->take_native_ips();
    }
    for (uintptr_t ip : native_ips) name_native_frame(ip);
  } else if (options_.shadows) {
    tick.samples = sample_shadows(*options_.shadows, scheduler_states_);
    tick.shadow_sample_ns_total = shadow_sample_ns = monotonic_ns() - start_ns;
    std::lock_guard<std::mutex> lock(tree_mutex_);
    count_before_walk();
  }
  bool walked = snapshot_due();
  if (walked) {
    if (reconciliation_) reconciliation_->prepare(*options_.shadows);
    stack_tick_->prepare();
    stack_tick_->take(tick_index_, tick, reconciliation_ ? &*reconciliation_ : nullptr, stopping_);
    threads_met_ |= tick.suspensions != 0 && tick.drops[size_t(SampleDrop::kEnumThreadsFailed)] == 0;
  }
  {
    std::lock_guard<std::mutex> lock(tree_mutex_);
    if (stopped_) return;
    if (reconciliation_ && tick.suspensions) reconciliation_->after_resume();
    if (signal_sampling_ && !options_.shadows && tick.suspensions)
      signal_sampling_->check_against(*stack_tick_, tick_index_, tick);
    if (attribution_ && walked) {
      attribution_->add(*stack_tick_, tick_index_, tick);
      native_ips = attribution_->take_native_ips();
    }
    tick.tick_ns_total = tick.tick_ns_max = monotonic_ns() - start_ns;
    if (tick.suspensions) {
      tick.snapshot_ticks = 1;
      tick.snapshot_ns_total = tick.tick_ns_total - shadow_sample_ns;
    }
    stats_.add_tick(tick);
    stats_.cpu_ns_total = current_thread_cpu_ns();
  }
  if (walked) {
    stack_tick_->register_unknown_threads();
    // Sampled mode's stacks with their native tops; shadow mode's walks (their native segments are spliced in).
    if (attribution_) {
      for (uintptr_t ip : native_ips) name_native_frame(ip);
    } else {
      for (const StackTick::Walk& walk : stack_tick_->walks())
        for (size_t i = walk.first; i < walk.first + walk.count; ++i)
          if (stack_tick_->frames()[i].native) name_native_frame(stack_tick_->frames()[i].id);
    }
  }
}

// Named once, after the tick that first met it, outside the tree's lock: the report at exit then finds the names
// made (reading a module's symbol table is most of naming).
void Sampler::name_native_frame(uintptr_t ip) {
  if (options_.native_names != nullptr && native_frames_named_.insert(ip).second) options_.native_names->lookup(ip);
}

SpliceMap Sampler::splices() {
  std::lock_guard<std::mutex> lock(tree_mutex_);
  return reconciliation_ ? reconciliation_->splices() : SpliceMap{};
}

ReconcileCounts Sampler::reconcile_counts() {
  std::lock_guard<std::mutex> lock(tree_mutex_);
  return reconciliation_ ? reconciliation_->totals() : ReconcileCounts{};
}

std::string Sampler::first_unexplained() {
  std::lock_guard<std::mutex> lock(tree_mutex_);
  return reconciliation_ ? reconciliation_->first_unexplained() : std::string();
}

}  // namespace umbra
