// The object CoreCLR loads: ICorProfilerCallback11. It stays thin: each callback umbra cares about is forwarded to
// the layer that owns it (Session, ThreadRegistry, FunctionNames, the thread's ThreadShadow); all others answer
// S_OK through CallbackDefaults. Callbacks never throw into the runtime.
#pragma once

#include <atomic>
#include <memory>

#include "profiler/callback_defaults.h"
#include "profiler/session.h"

namespace umbra {

class Profiler final : public CallbackDefaults {
 public:
  HRESULT QueryInterface(const clr::IID& riid, void** object) override;
  ULONG AddRef() override;
  ULONG Release() override;

  HRESULT Initialize(IUnknown* info) override;
  HRESULT InitializeForAttach(IUnknown* info, void* client_data, UINT client_data_size) override;
  HRESULT ProfilerAttachComplete() override;
  HRESULT ProfilerDetachSucceeded() override;
  HRESULT Shutdown() override;
  HRESULT ThreadCreated(ThreadID thread) override;
  HRESULT ThreadDestroyed(ThreadID thread) override;
  HRESULT ThreadAssignedToOSThread(ThreadID thread, DWORD os_thread_id) override;
  HRESULT ThreadNameChanged(ThreadID thread, ULONG cch_name, WCHAR name[]) override;
  HRESULT JITCompilationFinished(FunctionID function, HRESULT status, BOOL is_safe_to_block) override;
  HRESULT JITInlining(FunctionID caller, FunctionID callee, BOOL* should_inline) override;
  HRESULT JITCompilationStarted(FunctionID function, BOOL is_safe_to_block) override;
  HRESULT JITCachedFunctionSearchStarted(FunctionID function, BOOL* use_cached_function) override;
  HRESULT ModuleLoadStarted(ModuleID module) override;
  HRESULT ModuleLoadFinished(ModuleID module, HRESULT status) override;
  HRESULT DynamicMethodJITCompilationStarted(FunctionID function, BOOL is_safe_to_block, LPCBYTE il_header,
                                             ULONG il_header_size) override;
  HRESULT ExceptionThrown(ObjectID exception) override;
  HRESULT ExceptionSearchFunctionEnter(FunctionID function) override;
  HRESULT ExceptionSearchFunctionLeave() override;
  HRESULT ExceptionSearchFilterEnter(FunctionID function) override;
  HRESULT ExceptionSearchFilterLeave() override;
  HRESULT ExceptionSearchCatcherFound(FunctionID function) override;
  HRESULT ExceptionUnwindFunctionEnter(FunctionID function) override;
  HRESULT ExceptionUnwindFunctionLeave() override;
  HRESULT ExceptionCatcherEnter(FunctionID function, ObjectID exception) override;
  HRESULT ExceptionCatcherLeave() override;
  HRESULT LoadAsNotificationOnly(BOOL* notification_only) override;

  // The live session, for exit paths outside the runtime's callbacks (atexit, fatal signals).
  static Session* active_session();

 private:
  std::atomic<ULONG> refs_{1};
};

}  // namespace umbra
