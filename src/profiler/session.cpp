#include "profiler/session.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <thread>
#include <vector>

#include "clr/guids.h"
#include "hooks/shadow_hooks.h"
#include "merge/sampled_tree_builder.h"
#include "merge/tree_builder.h"
#include "report/report_tree.h"
#include "profiler/pyroscope_ingest.h"
#include "profiler/runtime_version.h"
#include "snapshot/thread_cpu_time.h"
#include "util/log.h"
#include "report/output_files.h"
#include "report/text_writer.h"
#include "util/large_stack.h"
#include "util/pointer_filter.h"
#include "util/shared_work.h"
#include "util/version.h"

namespace umbra {
namespace {

// How long the program's end waits for pushes still queued or in flight (PyroscopePusher::finish).
constexpr auto kPushWaitAtEnd = std::chrono::seconds(3);

// Below this many nodes the report's tree takes milliseconds: no helper threads are started for it.
constexpr uint64_t kNodesWorthSharing = 100'000;
// Converting waits on memory more than it computes; more helpers than this were never measured.
constexpr unsigned kMostReportHelpers = 3;

int64_t realtime_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

std::string host_name() {
  char name[256] = {};
  return gethostname(name, sizeof name - 1) == 0 && name[0] ? name : "unknown";
}

ShadowLimits limits_of(const Config& config) {
  ShadowLimits limits;
  limits.max_depth = config.max_depth;
  limits.node_bytes = size_t(config.max_tree_mb) << 20;
  limits.every_method_hooked = config.hooks_for.empty();
  return limits;
}

clr::ICorProfilerInfo10* g_info_for_thread_ids = nullptr;

clr::ThreadID runtime_thread_id() {
  clr::ThreadID id = 0;
  return clr::succeeded(g_info_for_thread_ids->GetCurrentThreadID(&id)) ? id : 0;
}

}  // namespace

Session::Session(Config config, clr::ICorProfilerInfo10* info)
    : config_(std::move(config)), info_(info), pool_(limits_of(config_)), threads_(pool_), names_(info) {}

clr::HRESULT Session::start() {
  // Asked now: the report may be written where the runtime can no longer answer (exit(), a signal).
  runtime_version_ = runtime_version(*info_);
  process_ = this_process();
  unix_minus_monotonic_ns_ = realtime_ns() - int64_t(monotonic_ns());
  clr::HRESULT hr = config_.mode == Mode::kSampled ? start_sampled() : start_shadow();
  if (clr::succeeded(hr) && !config_.attached) start_report_threads();
  return hr;
}

// Periods start with the profile: an attached session's when its sampler starts.
void Session::start_report_threads() {
  {
    std::lock_guard<std::mutex> lock(report_mutex_);
    period_start_ns_ = monotonic_ns();
  }
  if (!config_.push_url.empty()) {
    PyroscopePusher::Settings push;
    push.url = config_.push_url;
    push.application = config_.push_name.empty() ? application_name_of(process_.program) : config_.push_name;
    push.labels = {{"host", label_value(host_name())}, {"pid", std::to_string(getpid())},
                   {"mode", mode_name(config_.mode)}};
    if (std::optional<PushLabels> more = parse_labels(config_.push_labels))
      push.labels.insert(push.labels.end(), more->begin(), more->end());
    push.sample_rate_hz = std::max<uint32_t>(1, 1000 / config_.interval_ms);
    try {
      pusher_ = std::make_unique<PyroscopePusher>(std::move(push));
    } catch (const std::exception& e) {
      log::always(std::string("no thread to push with (") + e.what() + "); not pushing");
    }
  }
  periodic_ = std::make_unique<PeriodicReports>(
      config_.every_ms, [this](const char* trigger) { return write_period_report(trigger); },
      [this] {
        if (!clr::succeeded(info_->InitializeCurrentThread())) log::debug("InitializeCurrentThread failed");
      });
  try {
    periodic_->start();
  } catch (const std::exception& e) {  // no thread to be had: the program runs on, with the report at its end
    log::always(std::string("no thread for periodic reports (") + e.what() + "); the report is written at the end only");
  }
}

clr::HRESULT Session::start_shadow() {
  clr::DWORD mask = clr::COR_PRF_MONITOR_ENTERLEAVE | clr::COR_PRF_MONITOR_THREADS |
                    clr::COR_PRF_MONITOR_EXCEPTIONS | clr::COR_PRF_MONITOR_JIT_COMPILATION;
  // Snapshots need ENABLE_STACK_SNAPSHOT, which puts every ELT2 hook on the runtime's slower path (ELT3 keeps its
  // fast path).
  const bool snapshots = config_.verify || config_.reconcile_ms > 0;
  if (snapshots) mask |= clr::COR_PRF_ENABLE_STACK_SNAPSHOT;
  // The mapper first: should the runtime refuse it, every method gets hooks, and the event mask and the shadow
  // stacks must be those of full shadow mode.
  if (!config_.hooks_for.empty()) {
    // The coarse clock's thread waits for a method to time: a process whose methods the patterns all leave alone
    // (a compiler a build starts) runs without it.
    hook_selection_ = std::make_unique<HookSelection>(info_, names_, *MethodPatterns::parse(config_.hooks_for),
                                                      [this] { start_coarse_clock(); });
    clr::HRESULT hr = info_->SetFunctionIDMapper2(&HookSelection::map_function, hook_selection_.get());
    if (!clr::succeeded(hr)) {
      log::error("SetFunctionIDMapper2 failed with 0x{:x}; every method gets hooks", uint32_t(hr));
      hook_selection_.reset();
      pool_.hook_every_method();
    }
  }
  // Focused: only hooked methods are kept from inlining (JITInlining), the rest compiles as usual.
  const bool focused = hook_selection_ != nullptr;
  if (!config_.allow_inlining && !focused) mask |= clr::COR_PRF_DISABLE_INLINING;
  // Precompiled (ReadyToRun) code has no hooks. With every method hooked, none is used: the runtime already refuses
  // it when hooks are on as a module loads, and the flag makes sure. Focused, precompiled code is kept for the
  // methods without hooks: hooks are off while modules load, and hooked methods refuse their precompiled code.
  const bool keep_precompiled = focused && config_.precompiled == Precompiled::kKeep;
  if (keep_precompiled) mask |= clr::COR_PRF_MONITOR_MODULE_LOADS | clr::COR_PRF_MONITOR_CACHE_SEARCHES;
  else mask |= clr::COR_PRF_DISABLE_ALL_NGEN_IMAGES;
  clr::HRESULT hr = info_->SetEventMask(mask);
  if (!clr::succeeded(hr)) {
    log::error("SetEventMask(0x{:x}) failed with 0x{:x}; the program runs unprofiled", mask, uint32_t(hr));
    return hr;
  }
  if (keep_precompiled) ready_to_run_windows_ = std::make_unique<ReadyToRunWindows>(info_, mask);
  pool_.prepare(ThreadRegistry::kPreparedShadows);
  g_info_for_thread_ids = info_;
  hooks::install_pool(&pool_, &runtime_thread_id);
  if (!hook_selection_) start_coarse_clock();
  hr = install_hooks();
  if (!clr::succeeded(hr)) {
    stop_coarse_clock();
    return hr;
  }
  SamplerOptions options;
  options.native_names = &native_symbols_;
  options.interval_ms = config_.interval_ms;
  options.shadows = &pool_;
  options.stacks_by_signal = hook_selection_ != nullptr;
  options.full_shadow_stacks_by_signal = hook_selection_ == nullptr && !config_.noop_hooks;
  options.reconcile_every = ticks_between_checks(config_.reconcile_ms);
  sampler_ = std::make_unique<Sampler>(*info_, threads_, names_, options);
  sampler_->start();
  log::info("shadow mode: {} hooks, event mask 0x{:x}, report to {}.*", hook_family_name(config_.hooks), mask,
            config_.output_prefix);
  return clr::S_OK;
}

// Do-nothing hooks read no clock: a benchmark's floor runs without the clock's thread. Until the clock runs, the hooks
// read the exact one.
void Session::start_coarse_clock() {
  if (config_.exact_times || config_.noop_hooks) return;
  std::lock_guard<std::mutex> lock(clock_mutex_);
  CoarseClockDemand demand;
  if (!config_.coarse_times) demand.calls = [this] {
    uint64_t calls = 0;
    pool_.for_each_claimed([&](const ThreadShadow& shadow) { calls += shadow.enters(); });
    return calls;
  };
  demand.begin_coarse = config_.hooks_for.empty();
  if (!clock_stopped_) coarse_clock_.start(std::chrono::milliseconds(1), std::move(demand));
}

void Session::stop_coarse_clock() {
  std::lock_guard<std::mutex> lock(clock_mutex_);
  clock_stopped_ = true;
  coarse_clock_.stop();
}

clr::HRESULT Session::install_hooks() {
  clr::HRESULT hr;
  if (config_.hooks == HookFamily::kElt3) {
    if (config_.noop_hooks) hr = info_->SetEnterLeaveFunctionHooks3(&umbra_elt3_noop, &umbra_elt3_noop, &umbra_elt3_noop);
    else hr = info_->SetEnterLeaveFunctionHooks3(&umbra_elt3_enter, &umbra_elt3_leave, &umbra_elt3_tailcall);
  } else if (config_.noop_hooks) {
    hr = info_->SetEnterLeaveFunctionHooks2(&hooks::noop_enter2, &hooks::noop_leave2, &hooks::noop_tailcall2);
  } else {
    hr = info_->SetEnterLeaveFunctionHooks2(&hooks::on_enter2, &hooks::on_leave2, &hooks::on_tailcall2);
  }
  if (!clr::succeeded(hr)) {
    log::error("SetEnterLeaveFunctionHooks{} failed with 0x{:x}; the program runs unprofiled",
               config_.hooks == HookFamily::kElt3 ? 3 : 2, uint32_t(hr));
  } else if (config_.noop_hooks) {
    log::always("UMBRA_BENCH_NOOP_HOOKS=1: the hooks do nothing (a benchmark floor); the report has no calls");
  }
  return hr;
}

// Ticks between two checks against the runtime's walk (0: none): `every_ms` in ticks, every tick with --verify.
uint32_t Session::ticks_between_checks(uint32_t every_ms) const {
  if (config_.verify) return 1;
  if (every_ms == 0) return 0;
  return std::max<uint32_t>(1, (every_ms + config_.interval_ms / 2) / config_.interval_ms);
}

// Sampled mode: no hooks; precompiled code and inlining stay as they are, so the program runs at full speed.
clr::HRESULT Session::start_sampled() {
  clr::DWORD mask = clr::COR_PRF_MONITOR_THREADS | clr::COR_PRF_ENABLE_STACK_SNAPSHOT;
  clr::HRESULT hr = info_->SetEventMask(mask);
  if (!clr::succeeded(hr)) {
    log::error("SetEventMask(0x{:x}) failed with 0x{:x}; the program runs unprofiled", mask, uint32_t(hr));
    return hr;
  }
  SamplerOptions options;
  options.native_names = &native_symbols_;
  options.interval_ms = config_.interval_ms;
  options.walker = config_.walker == Walker::kSuspend ? SamplerOptions::Walker::kSuspend : SamplerOptions::Walker::kSignal;
  options.reconcile_every = ticks_between_checks(config_.check_ms);
  sampler_ = std::make_unique<Sampler>(*info_, threads_, names_, options);
  if (!config_.attached) start_sampling();
  return clr::S_OK;
}

void Session::start_sampling() {
  if (config_.attached) start_report_threads();
  // Attached: the runtime sends no ThreadCreated for the threads already running; taken from its list now, they are
  // walked from the first tick on (else that tick finds them unknown, counted as thread_not_yet_known).
  clr::ICorProfilerThreadEnum* running = nullptr;
  if (config_.attached && clr::succeeded(info_->EnumThreads(&running)) && running != nullptr) {
    clr::ThreadID ids[256];
    clr::ULONG fetched = 0;
    while (clr::succeeded(running->Next(256, ids, &fetched)) && fetched > 0)
      for (clr::ULONG i = 0; i < fetched; ++i) threads_.on_seen_by_sampler(ids[i]);
    running->Release();
  }
  sampler_->start();
  log::info("sampled mode: every {} ms, report to {}.*", config_.interval_ms, config_.output_prefix);
}

void Session::stop_sampling_and_wait() {
  if (sampler_) sampler_->stop_and_join();
}

std::string Session::release_signal_handlers() {
  return sampler_ ? sampler_->release_native_tops(std::chrono::seconds(2)) : "";
}

// A live thread's CPU time now; an ended one's as the sampler last read it (at its last sample).
std::optional<uint64_t> Session::thread_cpu(pid_t tid, bool ended, uint64_t last_read) const {
  if (!ended) {
    std::optional<uint64_t> now;
    if (!cpu_at_copy_) {
      now = thread_cpu_ns(tid);
    } else if (auto it = cpu_at_copy_->find(tid); it != cpu_at_copy_->end()) {
      now = it->second;
    }
    if (now) return std::max(*now, last_read);
  }
  return last_read ? std::optional<uint64_t>(last_read) : std::nullopt;
}

bool Session::report_written_after_exit(const char* trigger, bool runtime_usable, bool provisional) const {
  return config_.descendant && !config_.attached && !provisional && runtime_usable &&
         std::string_view(trigger) == "shutdown" && !periods_active() && !pusher_ &&
         launcher_waits_for(pid_t(config_.launched_pid));
}

ReportWriter Session::copy_for_report() {
  // Read here: the copy has none of these threads.
  std::unordered_map<pid_t, uint64_t> cpu;
  for (const ThreadRegistry::Snapshot& entry : threads_.snapshot()) {
    if (entry.ended) continue;
    for (pid_t tid : {entry.record->shadow ? entry.record->shadow->os_tid : pid_t(0),
                      entry.record->sampled.os_tid.load(std::memory_order_relaxed)})
      if (std::optional<uint64_t> now = tid ? thread_cpu_ns(tid) : std::nullopt) cpu[tid] = *now;
  }
  std::mutex no_sampler, no_selection;
  std::mutex& sampler_trees = sampler_ ? sampler_->tree_mutex() : no_sampler;
  std::mutex& selection = hook_selection_ ? hook_selection_->mutex_for_copy() : no_selection;
  auto hold = [&] {
    return std::try_lock(names_.mutex_for_copy(), native_symbols_.mutex_for_copy(), threads_.mutex_for_copy(),
                         sampler_trees, selection) == -1;
  };
  auto release = [&] {
    selection.unlock();
    sampler_trees.unlock();
    threads_.mutex_for_copy().unlock();
    native_symbols_.mutex_for_copy().unlock();
    names_.mutex_for_copy().unlock();
  };
  ReportWriter writer = umbra::copy_for_report(hold, release);
  if (writer == ReportWriter::kInWriter) {
    names_.freeze();  // the runtime is not in the copy
    cpu_at_copy_ = std::move(cpu);
  }
  return writer;
}

Report Session::build_report(const char* trigger, PeriodCounts::Lens* lens, SharedWork* work) {
  Report report;
  report.mode = mode_name(config_.mode);
  report.pid = pid_;
  report.program = process_.program;
  report.command_line = process_.command_line;
  report.runtime = runtime_version_;
  report.umbra_version = umbra_version();
  report.runtime_frames = config_.runtime_frames;
  report.duration_ns = monotonic_ns() - clock_.start_ns();
  if (config_.mode == Mode::kSampled) add_sampled_threads(report, lens);
  else add_shadow_threads(report, lens, work);
  report.stats = report_stats(trigger, report.threads.size());
  return report;
}

ReportThread Session::sampled_thread(const ThreadRegistry::Snapshot& entry, PeriodCounts::Lens* lens) {
  NameLookup managed = [this](clr::FunctionID f) { return names_.lookup(f); };
  NativeLookup native = [this](uintptr_t ip) { return native_symbols_.lookup(ip); };
  const SampledThread& t = entry.record->sampled;
  ReportThread thread;
  thread.os_tid = uint64_t(t.os_tid.load(std::memory_order_relaxed));
  thread.managed_id = t.thread_id;
  thread.name = entry.name;
  thread.exited = entry.ended;
  thread.sampled_by_snapshot = t.sampled_by_snapshot.load(std::memory_order_relaxed);
  if (t.walks_checked > 0) {  // read under the sampler's tree mutex, as the trees
    thread.walks_checked = t.walks_checked;
    thread.walk_frames_checked = t.walk_frames_checked;
    thread.walk_frames_agreed = t.walk_frames_agreed;
  }
  ThreadCounts counts{thread_cpu(t.os_tid.load(std::memory_order_relaxed), entry.ended,
                                  t.cpu_ns_seen.load(std::memory_order_relaxed)),
                      t.managed_samples, t.native_samples};
  if (lens) counts = lens->thread(entry.record.get(), counts);
  thread.managed_samples = counts.managed_samples;
  thread.native_samples = counts.native_samples;
  thread.cpu_ns = counts.cpu_ns;
  thread.roots = build_sampled_roots(t.tree, managed, native, lens);
  return thread;
}

void Session::add_sampled_threads(Report& report, PeriodCounts::Lens* lens) {
  // The sampler writes the trees under its mutex (a periodic report is built while it runs).
  std::lock_guard<std::mutex> sampler_lock(sampler_->tree_mutex());
  for (const auto& entry : threads_.snapshot())
    if (entry.record->sampled.tree.samples() > 0 && (!lens || lens->includes_thread(entry.record.get())))
      report.threads.push_back(sampled_thread(entry, lens));
  std::stable_sort(report.threads.begin(), report.threads.end(),
                   [](const ReportThread& a, const ReportThread& b) { return a.os_tid < b.os_tid; });
}

void Session::add_shadow_threads(Report& report, PeriodCounts::Lens* lens, SharedWork* work) {
  uint64_t now = read_ticks();
  double ns_per_tick = clock_.ns_per_tick();
  NameLookup lookup = [this](clr::FunctionID f) { return names_.lookup(f); };
  NativeLookup native = [this](uintptr_t ip) { return native_symbols_.lookup(ip); };
  const SpliceMap splices = sampler_->splices();
  PointerFilter maybe_spliced(splices.size());
  for (const auto& [node, splice] : splices)
    if (splice.shown()) maybe_spliced.add(node);
  SpliceLookup splice_of;
  if (!splices.empty())
    splice_of = [&](const CallNode* node) -> const std::vector<SampleFrame>* {
      if (!maybe_spliced.may_hold(node)) return nullptr;
      auto it = splices.find(node);
      return it == splices.end() || !it->second.shown() ? nullptr : &it->second.frames;
    };

  // Focused shadow mode's sampled frames are read under the sampler's mutex: a provisional or periodic report is
  // written while the sampler runs on. Full shadow mode's samples are counts in the nodes: no lock holds the
  // sampler back while a large tree is read.
  std::unique_lock<std::mutex> sampler_lock(sampler_->tree_mutex(), std::defer_lock);
  if (sampler_->stacks_by_signal()) sampler_lock.lock();
  const AboveHooks* above_hooks = sampler_->above_hooks();
  PointerFilter maybe_above(above_hooks ? above_hooks->size() : 0);
  AboveLookup above;
  if (above_hooks && !above_hooks->empty()) {
    for (const auto& entry : *above_hooks) maybe_above.add(entry.first);
    above = [above_hooks, &maybe_above](const CallNode* node) -> const SampledTree* {
      if (!maybe_above.may_hold(node)) return nullptr;
      auto it = above_hooks->find(node);
      return it == above_hooks->end() ? nullptr : &it->second;
    };
  }

  // Threads in the order their shadows were claimed: the main thread first.
  std::unordered_map<const ThreadShadow*, size_t> claim_order;
  pool_.for_each_claimed([&](ThreadShadow& s) { claim_order[&s] = claim_order.size(); });
  std::vector<ThreadRegistry::Snapshot> threads = threads_.snapshot();
  // A thread that never ran a hooked method has no shadow; in focused shadow mode its samples are its own tree.
  std::vector<ThreadRegistry::Snapshot> unhooked_threads;
  for (const ThreadRegistry::Snapshot& t : threads)
    if (t.record->shadow == nullptr && t.record->sampled.tree.samples() > 0 &&
        (!lens || lens->includes_thread(t.record.get())))
      unhooked_threads.push_back(t);
  std::erase_if(threads, [](const ThreadRegistry::Snapshot& t) { return t.record->shadow == nullptr; });
  std::sort(threads.begin(), threads.end(), [&](const auto& a, const auto& b) {
    return claim_order[a.record->shadow] > claim_order[b.record->shadow];
  });
  FrameNamers namers(lookup, native);  // a method is named once per worker, whichever threads ran it
  for (const ThreadRegistry::Snapshot& entry : threads) {
    ThreadShadow& shadow = *entry.record->shadow;
    if (lens && !lens->includes_thread(&shadow)) continue;
    OpenTicks open;
    shadow.for_each_open_frame(now, [&](const CallNode* node, uint64_t ticks) { open[node] += ticks; });
    ReportThread thread;
    thread.os_tid = uint64_t(shadow.os_tid);
    if (shadow.thread_id) thread.managed_id = shadow.thread_id;
    thread.name = entry.name;
    thread.exited = shadow.retired.load(std::memory_order_acquire);
    ThreadCounts counts;
    // The sampler last read the thread's CPU time for its shadow sample or, taking its stack by signal, for the thread.
    uint64_t cpu_read = std::max(shadow.sampler_cpu_ns.load(std::memory_order_relaxed),
                                 entry.record->sampled.cpu_ns_seen.load(std::memory_order_relaxed));
    counts.cpu_ns = thread_cpu(shadow.os_tid, thread.exited, cpu_read);
    if (lens) counts = lens->thread(&shadow, counts);
    thread.cpu_ns = counts.cpu_ns;
    uint64_t calls = 0;
    thread.roots = build_roots(shadow.root(), lookup, ns_per_tick, open, splice_of, native, above, lens, &calls,
                               work, &namers);
    thread.calls = calls;  // samples merged in below add no calls
    // Focused shadow mode: the samples taken while no hooked method was on the thread's stack.
    if (const SampledTree& sampled = entry.record->sampled.tree; sampled.samples() > 0) {
      SiblingMerger merger(thread.roots);
      for (ReportNode& root : build_sampled_roots(sampled, lookup, native, lens)) merger.add(std::move(root));
    }
    if (!thread.roots.empty()) report.threads.push_back(std::move(thread));
  }
  for (const ThreadRegistry::Snapshot& entry : unhooked_threads) report.threads.push_back(sampled_thread(entry, lens));
}

unsigned Session::report_helpers_wanted() {
  // A large tree (a test suite's: millions of nodes, seconds at exit) is converted and written by the idle CPUs
  // together.
  uint64_t nodes = 0;
  pool_.for_each_claimed([&](ThreadShadow& shadow) { nodes += shadow.node_count(); });
  return nodes >= kNodesWorthSharing ? SharedWork::useful_helpers(kMostReportHelpers) : 0;
}

void Session::print_verify_summary() {
  for (const std::string& line : verify_summary(sampler_->reconcile_counts(), sampler_->first_unexplained()))
    log::always(line);
}

// "periodic reports: PREFIX.p1.* to PREFIX.p3.*; pushed 2 of them to URL, 1 failed (why)".
std::string Session::periods_line(uint32_t periods, const std::optional<ReportStats::Push>& push) const {
  std::string prefix = config_.output_prefix;
  std::string line = "periodic reports: " + prefix + ".p1.*" + (periods > 1 ? " to " + prefix + ".p" + std::to_string(periods) + ".*" : "");
  if (push && pusher_) {
    line += "; pushed " + std::to_string(push->pushed.value_or(0)) + " of them to " + redacted_url(config_.push_url);
    if (push->failed.value_or(0)) line += ", " + std::to_string(*push->failed) + " failed (" + push->first_failure.value_or("") + ")";
    if (push->dropped.value_or(0)) line += ", " + std::to_string(*push->dropped) + " dropped (the queue was full)";
    if (push->abandoned.value_or(0)) line += ", " + std::to_string(*push->abandoned) + " not sent in time at the end";
  }
  return line;
}

bool Session::periods_active() const { return config_.every_ms || !config_.push_url.empty() || periods_written_; }

PeriodicReports::Written Session::write_period_report(const char* trigger) {
  std::lock_guard<std::mutex> lock(report_mutex_);
  PeriodicReports::Written written;
  if (reports_over_) {
    written.error = "the program is ending: its last reports are being written";
    return written;
  }
  std::string error;
  if (!run_on_large_stack([&] { written = write_period_locked(trigger); }, &error))
    written.error = "the report was not written: " + large_stack_refusal(error);
  return written;
}

PeriodicReports::Written Session::write_period_locked(const char* trigger) {
  const uint64_t started_ns = monotonic_ns();
  PeriodCounts::Lens since_last(period_counts_, PeriodCounts::Use::kPeriod);
  Report report = build_report(trigger, &since_last);
  const uint64_t end_ns = monotonic_ns();
  PeriodicReports::Written written;
  written.index = ++periods_written_;
  written.duration_ns = end_ns - period_start_ns_;
  report.duration_ns = written.duration_ns;
  // Only what happened in the period: threads and nodes where nothing did are left out.
  for (ReportThread& thread : report.threads) drop_empty_nodes(thread.roots);
  std::erase_if(report.threads, [](const ReportThread& t) { return t.roots.empty(); });
  report.stats.threads_reported = report.threads.size();
  report.stats.period = ReportStats::Period{.index = written.index, .start_unix_ns = unix_ns_at(period_start_ns_),
                                            .end_unix_ns = unix_ns_at(end_ns), .unread = {}};
  if (pusher_) report.stats.push = pusher_->stats();
  const uint64_t built_ns = monotonic_ns();
  OutputRequest request{config_.output_prefix + ".p" + std::to_string(written.index), config_.formats,
                        config_.min_percent, report.pid, {}};
  written.files = write_report_files(report, request, [](const std::string& line) { log::always(line); });
  if (pusher_) pusher_->push(render_format(report, "pprof", request), unix_ns_at(period_start_ns_), unix_ns_at(end_ns));
  log::info("period {} ({}): {} threads; the tree built in {} ms, the files written in {} ms", written.index, trigger,
            report.threads.size(), (built_ns - started_ns) / 1000000, (monotonic_ns() - built_ns) / 1000000);
  period_start_ns_ = end_ns;
  return written;
}

void Session::join_report_threads() {
  if (periodic_) periodic_->join();
  if (pusher_) pusher_->join();
}

void Session::finish(const char* trigger, bool runtime_usable, bool provisional) {
  std::lock_guard<std::mutex> lock(finish_mutex_);
  if (finished_) return;
  finished_ = !provisional;
  if (periodic_ && !provisional) periodic_->stop();
  if (periodic_ && provisional) periodic_->remove_fifo();
  if (sampler_ && !provisional) sampler_->stop();
  if (!provisional) stop_coarse_clock();
  if (!runtime_usable) names_.freeze();
  // After a periodic report being written, if any.
  std::lock_guard<std::mutex> reports(report_mutex_);
  reports_over_ = !provisional;
  std::string error;
  bool ran = run_on_large_stack([&] {
    uint64_t started_ns = monotonic_ns();
    // The last period first; then the whole run, as that period read it, so that the periods add up to it.
    std::optional<PeriodCounts::Lens> as_last_read;
    if (periods_active()) {
      write_period_locked(trigger);
      as_last_read.emplace(period_counts_, PeriodCounts::Use::kLastRead);
    }
    if (pusher_) {
      // abort() waits for the report only so long (termination_signals.cpp): no push waits there.
      auto wait = std::string_view(trigger) == "signal_sigabrt" ? std::chrono::seconds(0) : kPushWaitAtEnd;
      if (provisional) pusher_->drain(std::chrono::steady_clock::now() + wait);
      else pusher_->finish(std::chrono::steady_clock::now() + wait);
    }
    bool in_writer = false;
    if (report_written_after_exit(trigger, runtime_usable, provisional)) {
      ReportWriter writer = copy_for_report();
      if (writer == ReportWriter::kElsewhere) return;
      in_writer = writer == ReportWriter::kInWriter;
    }
    // Helpers only where the program is ending: after a provisional report or an attached session's, it runs on.
    std::optional<SharedWork> helpers;
    auto start_helpers = [&] {
      if (unsigned wanted = provisional || config_.attached ? 0 : report_helpers_wanted()) helpers.emplace(wanted);
    };
    if (!as_last_read) start_helpers();  // a lens reads the tree on one thread: then for the files only
    const size_t named_in_run = native_symbols_.named();
    Report report = build_report(trigger, as_last_read ? &*as_last_read : nullptr, helpers ? &*helpers : nullptr);
    if (as_last_read) start_helpers();
    if (pusher_) report.stats.push = pusher_->stats();
    uint64_t built_ns = monotonic_ns();
    // The whole run's tree uses nearly every frame named: listing them all spares a walk of every node.
    OutputRequest request{config_.output_prefix, config_.formats, config_.min_percent, report.pid, {},
                          helpers ? &*helpers : nullptr, FrameListing::kEveryInterned};
    auto written = write_report_files(report, request, [](const std::string& line) { log::always(line); });
    log::info("report ({}): the tree built in {} ms, the files written in {} ms", trigger,
              (built_ns - started_ns) / 1000000, (monotonic_ns() - built_ns) / 1000000);
    log::info("report ({}): native frames named while the program ran {}, by the report {}", trigger, named_in_run,
              native_symbols_.named() - named_in_run);
    if (helpers && helpers->helpers() > 0)
      log::info("report: {} threads made it, {} parts handed from one to another", helpers->helpers() + 1,
                helpers->shared());
    helpers.reset();
    log::always(summary_line(report, written));
    if (as_last_read) log::always(periods_line(periods_written_, report.stats.push));
    if (config_.verify && config_.mode == Mode::kShadow) print_verify_summary();
    if (config_.verify && config_.mode == Mode::kSampled) {
      std::string walks = signal_walk_check_line(report.stats);
      log::always("verify: " + (walks.empty() ? std::string("no stack by signal was checked") : walks));
      for (const std::string& line : thread_walk_check_lines(report)) log::always("verify: " + line);
    }
    // The process is ending: freeing a model of millions of nodes piece by piece would only delay its exit. An
    // attached session's process runs on.
    if (!provisional && !config_.attached) static_cast<void>(new Report(std::move(report)));
    if (in_writer) end_report_writer();
  }, &error);
  if (!ran) log::always("the report was not written: " + large_stack_refusal(error));
}

}  // namespace umbra
