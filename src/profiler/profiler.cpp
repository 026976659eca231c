#include "profiler/profiler.h"

#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "clr/guids.h"
#include "hooks/shadow_hooks.h"
#include "hooks/tick_clock.h"
#include "profiler/attach_session.h"
#include "profiler/exit_paths.h"
#include "util/log.h"

namespace umbra {
namespace {

// Lives until the process ends: hooks may run on other threads up to the last instruction. An attached session
// (no hooks) ends at its detach instead, when no callback can be running.
std::atomic<Session*> g_session{nullptr};
// The attach's own state, from InitializeForAttach to ProfilerDetachSucceeded.
std::atomic<AttachSession*> g_attach{nullptr};

// Runs a callback body; an exception must never reach the runtime.
template <typename Body>
clr::HRESULT guarded(const char* what, Body&& body) {
  try {
    body();
    return clr::S_OK;
  } catch (const std::exception& e) {
    log::error("{} failed: {}", what, e.what());
  } catch (...) {
    log::error("{} failed", what);
  }
  return clr::S_OK;
}

}  // namespace

Session* Profiler::active_session() { return g_session.load(std::memory_order_acquire); }

clr::HRESULT Profiler::QueryInterface(const clr::IID& riid, void** object) {
  if (object == nullptr) return clr::E_POINTER;
  using namespace clr;
  if (riid == IID_IUnknown || riid == IID_ICorProfilerCallback || riid == IID_ICorProfilerCallback2 ||
      riid == IID_ICorProfilerCallback3 || riid == IID_ICorProfilerCallback4 || riid == IID_ICorProfilerCallback5 ||
      riid == IID_ICorProfilerCallback6 || riid == IID_ICorProfilerCallback7 || riid == IID_ICorProfilerCallback8 ||
      riid == IID_ICorProfilerCallback9 || riid == IID_ICorProfilerCallback10 ||
      riid == IID_ICorProfilerCallback11) {
    *object = static_cast<ICorProfilerCallback11*>(this);
    AddRef();
    return S_OK;
  }
  *object = nullptr;
  return E_NOINTERFACE;
}

clr::ULONG Profiler::AddRef() { return refs_.fetch_add(1, std::memory_order_relaxed) + 1; }

// The runtime holds the profiler until the process exits and hooks may still run after Shutdown, so the object
// is never deleted.
clr::ULONG Profiler::Release() { return refs_.fetch_sub(1, std::memory_order_acq_rel) - 1; }

clr::HRESULT Profiler::Initialize(IUnknown* info_unknown) {
  std::vector<std::string> warnings;
  Config config = load_config(
      [](const char* name) -> std::optional<std::string> {
        const char* v = std::getenv(name);
        return v ? std::optional<std::string>(v) : std::nullopt;
      },
      getpid(), warnings);
  for (auto& w : unknown_variable_warnings(environ)) warnings.push_back(std::move(w));
  log::init(config.log_level, config.descendant ? config.output_prefix + ".log" : "");
  for (const auto& w : warnings) log::always(w);

  clr::ICorProfilerInfo10* info = nullptr;
  if (!clr::succeeded(info_unknown->QueryInterface(clr::IID_ICorProfilerInfo10, reinterpret_cast<void**>(&info))) ||
      info == nullptr) {
    log::always("this runtime does not offer ICorProfilerInfo10 (.NET Core 3.0 or later is needed); not profiling");
    return clr::CORPROF_E_PROFILER_CANCEL_ACTIVATION;
  }
  auto* session = new Session(std::move(config), info);
  if (!clr::succeeded(session->start())) {
    delete session;
    return clr::CORPROF_E_PROFILER_CANCEL_ACTIVATION;
  }
  g_session.store(session, std::memory_order_release);
  install_exit_paths();
  return clr::S_OK;
}

// Attached by `umbra attach`: sampled mode only (the runtime refuses enter/leave hooks after start-up). The answer
// goes back to the launcher as the runtime's reply.
clr::HRESULT Profiler::InitializeForAttach(IUnknown* info_unknown, void* client_data, UINT client_data_size) {
  try {
    // Never expected: the runtime refuses a second profiler itself.
    if (active_session() != nullptr) return clr::CORPROF_E_PROFILER_ALREADY_ACTIVE;
    Config config;
    std::string problem;
    std::unique_ptr<AttachSession> attach = AttachSession::open(
        std::string_view(static_cast<const char*>(client_data), client_data ? client_data_size : 0), config, problem);
    if (!attach) {
      log::close();  // the log AttachSession::open may have opened: the runtime unloads the library now
      return clr::E_INVALIDARG;
    }
    clr::ICorProfilerInfo10* info = nullptr;
    if (!clr::succeeded(info_unknown->QueryInterface(clr::IID_ICorProfilerInfo10, reinterpret_cast<void**>(&info))) ||
        info == nullptr) {
      log::always("this runtime does not offer ICorProfilerInfo10 (.NET Core 3.0 or later is needed); not attaching");
      log::close();
      return clr::CORPROF_E_PROFILER_CANCEL_ACTIVATION;
    }
    auto session = std::make_unique<Session>(std::move(config), info);
    if (!clr::succeeded(session->start())) {
      log::close();
      return clr::CORPROF_E_PROFILER_CANCEL_ACTIVATION;
    }
    g_attach.store(attach.release(), std::memory_order_release);
    g_session.store(session.release(), std::memory_order_release);
    install_exit_paths(/*with_signal_handlers=*/false);
    return clr::S_OK;
  } catch (const std::exception& e) {
    log::always(std::string("attaching failed: ") + e.what());
  } catch (...) {
    log::always("attaching failed");
  }
  return clr::CORPROF_E_PROFILER_CANCEL_ACTIVATION;
}

// The runtime has finished the attach: threads that were running before it are found by the sampler's first
// walks (EnumThreads), since no ThreadCreated is sent for them.
clr::HRESULT Profiler::ProfilerAttachComplete() {
  return guarded("ProfilerAttachComplete", [] {
    Session* s = active_session();
    AttachSession* attach = g_attach.load(std::memory_order_acquire);
    if (s == nullptr || attach == nullptr) return;
    s->start_sampling();
    attach->start(*s, *s->info());
  });
}

// On the runtime's detach thread, once no callback is running and none can start: umbra's own thread has asked
// for the detach and is returning; when this returns, the runtime unloads the library.
clr::HRESULT Profiler::ProfilerDetachSucceeded() {
  return guarded("ProfilerDetachSucceeded", [] {
    AttachSession* attach = g_attach.exchange(nullptr, std::memory_order_acq_rel);
    if (attach) attach->wait_for_thread();
    delete g_session.exchange(nullptr, std::memory_order_acq_rel);
    if (attach) {
      attach->mark(kAttachDetached);
      attach->remove_orphaned_control_dir();
    }
    delete attach;
    log::close();
  });
}

clr::HRESULT Profiler::Shutdown() {
  return guarded("Shutdown", [] {
    AttachSession* attach = g_attach.load(std::memory_order_acquire);
    if (attach) attach->on_shutdown();
    if (Session* s = active_session()) s->finish("shutdown", true);
  });
}

clr::HRESULT Profiler::ThreadCreated(ThreadID thread) {
  return guarded("ThreadCreated", [&] {
    if (Session* s = active_session()) s->threads().on_created(thread);
  });
}

clr::HRESULT Profiler::ThreadDestroyed(ThreadID thread) {
  return guarded("ThreadDestroyed", [&] {
    if (Session* s = active_session()) s->threads().on_destroyed(thread);
  });
}

clr::HRESULT Profiler::ThreadAssignedToOSThread(ThreadID thread, DWORD os_thread_id) {
  return guarded("ThreadAssignedToOSThread", [&] {
    if (Session* s = active_session()) s->threads().on_assigned_os_thread(thread, os_thread_id);
  });
}

clr::HRESULT Profiler::ThreadNameChanged(ThreadID thread, ULONG cch_name, WCHAR name[]) {
  return guarded("ThreadNameChanged", [&] {
    if (Session* s = active_session())
      s->threads().on_name_changed(thread, name ? std::u16string_view(name, cch_name) : std::u16string_view());
  });
}

clr::HRESULT Profiler::JITCompilationStarted(FunctionID function, BOOL) {
  return guarded("JITCompilationStarted", [&] {
    Session* s = active_session();
    HookSelection* selection = s ? s->hook_selection() : nullptr;
    if (!selection) return;
    ReadyToRunWindows* windows = s->ready_to_run_windows();
    if (selection->compilation_started(function) && windows) windows->hooked_compilation_started();
  });
}

clr::HRESULT Profiler::JITCompilationFinished(FunctionID function, HRESULT, BOOL) {
  return guarded("JITCompilationFinished", [&] {
    Session* s = active_session();
    if (!s) return;
    s->names().remember(function);
    HookSelection* selection = s->hook_selection();
    if (!selection) return;
    ReadyToRunWindows* windows = s->ready_to_run_windows();
    if (selection->compilation_finished(function) && windows) windows->hooked_compilation_finished();
  });
}

// Focused shadow mode: precompiled code has no hooks, so a hooked method is compiled instead.
clr::HRESULT Profiler::JITCachedFunctionSearchStarted(FunctionID function, BOOL* use_cached_function) {
  return guarded("JITCachedFunctionSearchStarted", [&] {
    Session* s = active_session();
    HookSelection* selection = s ? s->hook_selection() : nullptr;
    if (selection && use_cached_function && !selection->may_use_precompiled(function))
      *use_cached_function = clr::FALSE_;
  });
}

// Focused shadow mode keeping precompiled code: hooks are off while a module loads (profiler/ready_to_run_windows.h).
clr::HRESULT Profiler::ModuleLoadStarted(ModuleID) {
  return guarded("ModuleLoadStarted", [&] {
    Session* s = active_session();
    if (ReadyToRunWindows* windows = s ? s->ready_to_run_windows() : nullptr) windows->module_load_started();
  });
}

clr::HRESULT Profiler::ModuleLoadFinished(ModuleID, HRESULT) {
  return guarded("ModuleLoadFinished", [&] {
    Session* s = active_session();
    if (ReadyToRunWindows* windows = s ? s->ready_to_run_windows() : nullptr) windows->module_load_finished();
  });
}

// Focused shadow mode: a hooked method is never inlined, so that each of its calls is counted.
clr::HRESULT Profiler::JITInlining(FunctionID, FunctionID callee, BOOL* should_inline) {
  return guarded("JITInlining", [&] {
    Session* s = active_session();
    HookSelection* selection = s ? s->hook_selection() : nullptr;
    if (selection && should_inline && !selection->may_inline(callee)) *should_inline = clr::FALSE_;
  });
}

// IL stubs and dynamic methods: their frames never appear in a snapshot.
clr::HRESULT Profiler::DynamicMethodJITCompilationStarted(FunctionID function, BOOL, LPCBYTE, ULONG) {
  return guarded("DynamicMethodJITCompilationStarted", [&] {
    if (Session* s = active_session()) s->names().mark_invisible(function);
  });
}

namespace {

// The search passed the bottom frame without a catcher: the runtime ends the process once this unwind is done (or,
// on .NET 8, without one), without Shutdown. The runtime is still whole here, so the report is complete (the
// unwinding frames count as open). It is provisional: should the process go on after all, a later exit writes the
// report again.
clr::HRESULT write_unhandled_exception_report() {
  return guarded("unhandled exception", [] {
    if (Session* s = Profiler::active_session()) s->finish("unhandled_exception", true, /*provisional=*/true);
  });
}

}  // namespace

// The exception callbacks run on the thread whose frames unwind, so they may update its shadow like a hook.
clr::HRESULT Profiler::ExceptionThrown(ObjectID) {
  if (ThreadShadow* shadow = hooks::existing_shadow()) shadow->exception_thrown();
  return clr::S_OK;
}

clr::HRESULT Profiler::ExceptionSearchFunctionEnter(FunctionID function) {
  if (ThreadShadow* shadow = hooks::existing_shadow()) shadow->search_enter(function);
  return clr::S_OK;
}

// .NET 8 ends the process after a search that found no catcher, with no unwind: the report is written here.
clr::HRESULT Profiler::ExceptionSearchFunctionLeave() {
  ThreadShadow* shadow = hooks::existing_shadow();
  if (shadow == nullptr || !shadow->search_leave()) return clr::S_OK;
  return write_unhandled_exception_report();
}

clr::HRESULT Profiler::ExceptionSearchFilterEnter(FunctionID function) {
  if (ThreadShadow* shadow = hooks::existing_shadow()) shadow->filter_enter(function);
  return clr::S_OK;
}

clr::HRESULT Profiler::ExceptionSearchFilterLeave() {
  if (ThreadShadow* shadow = hooks::existing_shadow()) shadow->filter_leave();
  return clr::S_OK;
}

clr::HRESULT Profiler::ExceptionSearchCatcherFound(FunctionID) {
  if (ThreadShadow* shadow = hooks::existing_shadow()) shadow->catcher_found();
  return clr::S_OK;
}

clr::HRESULT Profiler::ExceptionUnwindFunctionEnter(FunctionID function) {
  ThreadShadow* shadow = hooks::existing_shadow();
  if (shadow == nullptr || !shadow->unwind_enter(function)) return clr::S_OK;
  return write_unhandled_exception_report();
}

clr::HRESULT Profiler::ExceptionUnwindFunctionLeave() {
  if (ThreadShadow* shadow = hooks::existing_shadow()) shadow->unwind_leave(hook_ticks());
  return clr::S_OK;
}

clr::HRESULT Profiler::ExceptionCatcherEnter(FunctionID function, ObjectID) {
  if (ThreadShadow* shadow = hooks::existing_shadow()) shadow->catcher_enter(function, hook_ticks());
  return clr::S_OK;
}

clr::HRESULT Profiler::ExceptionCatcherLeave() {
  if (ThreadShadow* shadow = hooks::existing_shadow()) shadow->catcher_leave();
  return clr::S_OK;
}

clr::HRESULT Profiler::LoadAsNotificationOnly(BOOL* notification_only) {
  if (notification_only) *notification_only = clr::FALSE_;
  return clr::S_OK;
}

}  // namespace umbra
