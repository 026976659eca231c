// ICorProfilerCallback11 with every callback answering S_OK, so that the profiler class overrides only the
// callbacks umbra handles and stays thin.
#pragma once

#include "clr/corprof.h"

namespace umbra {

// clang-format off
class CallbackDefaults : public clr::ICorProfilerCallback11 {
 public:
  using HRESULT = clr::HRESULT;
  using BOOL = clr::BOOL;
  using UINT = clr::UINT;
  using ULONG = clr::ULONG;
  using DWORD = clr::DWORD;
  using SIZE_T = clr::SIZE_T;
  using UINT_PTR = clr::UINT_PTR;
  using WCHAR = clr::WCHAR;
  using LPCBYTE = clr::LPCBYTE;
  using LPCGUID = clr::LPCGUID;
  using GUID = clr::GUID;
  using IUnknown = clr::IUnknown;
  using ThreadID = clr::ThreadID;
  using FunctionID = clr::FunctionID;
  using ModuleID = clr::ModuleID;
  using ClassID = clr::ClassID;
  using AssemblyID = clr::AssemblyID;
  using AppDomainID = clr::AppDomainID;
  using ObjectID = clr::ObjectID;
  using GCHandleID = clr::GCHandleID;
  using ReJITID = clr::ReJITID;
  using mdMethodDef = clr::mdMethodDef;
  using EVENTPIPE_PROVIDER = clr::EVENTPIPE_PROVIDER;
  using COR_PRF_JIT_CACHE = clr::COR_PRF_JIT_CACHE;
  using COR_PRF_TRANSITION_REASON = clr::COR_PRF_TRANSITION_REASON;
  using COR_PRF_SUSPEND_REASON = clr::COR_PRF_SUSPEND_REASON;
  using COR_PRF_GC_REASON = clr::COR_PRF_GC_REASON;
  using COR_PRF_GC_ROOT_KIND = clr::COR_PRF_GC_ROOT_KIND;
  using COR_PRF_GC_ROOT_FLAGS = clr::COR_PRF_GC_ROOT_FLAGS;
  using ICorProfilerFunctionControl = clr::ICorProfilerFunctionControl;
  using ICorProfilerAssemblyReferenceProvider = clr::ICorProfilerAssemblyReferenceProvider;

  HRESULT Initialize(IUnknown* info) override { return clr::S_OK; }
  HRESULT Shutdown() override { return clr::S_OK; }
  HRESULT AppDomainCreationStarted(AppDomainID) override { return clr::S_OK; }
  HRESULT AppDomainCreationFinished(AppDomainID, HRESULT) override { return clr::S_OK; }
  HRESULT AppDomainShutdownStarted(AppDomainID) override { return clr::S_OK; }
  HRESULT AppDomainShutdownFinished(AppDomainID, HRESULT) override { return clr::S_OK; }
  HRESULT AssemblyLoadStarted(AssemblyID) override { return clr::S_OK; }
  HRESULT AssemblyLoadFinished(AssemblyID, HRESULT) override { return clr::S_OK; }
  HRESULT AssemblyUnloadStarted(AssemblyID) override { return clr::S_OK; }
  HRESULT AssemblyUnloadFinished(AssemblyID, HRESULT) override { return clr::S_OK; }
  HRESULT ModuleLoadStarted(ModuleID) override { return clr::S_OK; }
  HRESULT ModuleLoadFinished(ModuleID, HRESULT) override { return clr::S_OK; }
  HRESULT ModuleUnloadStarted(ModuleID) override { return clr::S_OK; }
  HRESULT ModuleUnloadFinished(ModuleID, HRESULT) override { return clr::S_OK; }
  HRESULT ModuleAttachedToAssembly(ModuleID, AssemblyID) override { return clr::S_OK; }
  HRESULT ClassLoadStarted(ClassID) override { return clr::S_OK; }
  HRESULT ClassLoadFinished(ClassID, HRESULT) override { return clr::S_OK; }
  HRESULT ClassUnloadStarted(ClassID) override { return clr::S_OK; }
  HRESULT ClassUnloadFinished(ClassID, HRESULT) override { return clr::S_OK; }
  HRESULT FunctionUnloadStarted(FunctionID) override { return clr::S_OK; }
  HRESULT JITCompilationStarted(FunctionID, BOOL is_safe_to_block) override { return clr::S_OK; }
  HRESULT JITCompilationFinished(FunctionID, HRESULT, BOOL is_safe_to_block) override { return clr::S_OK; }
  HRESULT JITCachedFunctionSearchStarted(FunctionID, BOOL* use_cached_function) override { return clr::S_OK; }
  HRESULT JITCachedFunctionSearchFinished(FunctionID, COR_PRF_JIT_CACHE) override { return clr::S_OK; }
  HRESULT JITFunctionPitched(FunctionID) override { return clr::S_OK; }
  HRESULT JITInlining(FunctionID caller, FunctionID callee, BOOL* should_inline) override { return clr::S_OK; }
  HRESULT ThreadCreated(ThreadID) override { return clr::S_OK; }
  HRESULT ThreadDestroyed(ThreadID) override { return clr::S_OK; }
  HRESULT ThreadAssignedToOSThread(ThreadID, DWORD os_thread_id) override { return clr::S_OK; }
  HRESULT RemotingClientInvocationStarted() override { return clr::S_OK; }
  HRESULT RemotingClientSendingMessage(GUID* cookie, BOOL is_async) override { return clr::S_OK; }
  HRESULT RemotingClientReceivingReply(GUID* cookie, BOOL is_async) override { return clr::S_OK; }
  HRESULT RemotingClientInvocationFinished() override { return clr::S_OK; }
  HRESULT RemotingServerReceivingMessage(GUID* cookie, BOOL is_async) override { return clr::S_OK; }
  HRESULT RemotingServerInvocationStarted() override { return clr::S_OK; }
  HRESULT RemotingServerInvocationReturned() override { return clr::S_OK; }
  HRESULT RemotingServerSendingReply(GUID* cookie, BOOL is_async) override { return clr::S_OK; }
  HRESULT UnmanagedToManagedTransition(FunctionID, COR_PRF_TRANSITION_REASON) override { return clr::S_OK; }
  HRESULT ManagedToUnmanagedTransition(FunctionID, COR_PRF_TRANSITION_REASON) override { return clr::S_OK; }
  HRESULT RuntimeSuspendStarted(COR_PRF_SUSPEND_REASON) override { return clr::S_OK; }
  HRESULT RuntimeSuspendFinished() override { return clr::S_OK; }
  HRESULT RuntimeSuspendAborted() override { return clr::S_OK; }
  HRESULT RuntimeResumeStarted() override { return clr::S_OK; }
  HRESULT RuntimeResumeFinished() override { return clr::S_OK; }
  HRESULT RuntimeThreadSuspended(ThreadID) override { return clr::S_OK; }
  HRESULT RuntimeThreadResumed(ThreadID) override { return clr::S_OK; }
  HRESULT MovedReferences(ULONG count, ObjectID old_starts[], ObjectID new_starts[], ULONG lengths[]) override { return clr::S_OK; }
  HRESULT ObjectAllocated(ObjectID, ClassID) override { return clr::S_OK; }
  HRESULT ObjectsAllocatedByClass(ULONG count, ClassID classes[], ULONG objects[]) override { return clr::S_OK; }
  HRESULT ObjectReferences(ObjectID, ClassID, ULONG count, ObjectID refs[]) override { return clr::S_OK; }
  HRESULT RootReferences(ULONG count, ObjectID refs[]) override { return clr::S_OK; }
  HRESULT ExceptionThrown(ObjectID) override { return clr::S_OK; }
  HRESULT ExceptionSearchFunctionEnter(FunctionID) override { return clr::S_OK; }
  HRESULT ExceptionSearchFunctionLeave() override { return clr::S_OK; }
  HRESULT ExceptionSearchFilterEnter(FunctionID) override { return clr::S_OK; }
  HRESULT ExceptionSearchFilterLeave() override { return clr::S_OK; }
  HRESULT ExceptionSearchCatcherFound(FunctionID) override { return clr::S_OK; }
  HRESULT ExceptionOSHandlerEnter(UINT_PTR) override { return clr::S_OK; }
  HRESULT ExceptionOSHandlerLeave(UINT_PTR) override { return clr::S_OK; }
  HRESULT ExceptionUnwindFunctionEnter(FunctionID) override { return clr::S_OK; }
  HRESULT ExceptionUnwindFunctionLeave() override { return clr::S_OK; }
  HRESULT ExceptionUnwindFinallyEnter(FunctionID) override { return clr::S_OK; }
  HRESULT ExceptionUnwindFinallyLeave() override { return clr::S_OK; }
  HRESULT ExceptionCatcherEnter(FunctionID, ObjectID) override { return clr::S_OK; }
  HRESULT ExceptionCatcherLeave() override { return clr::S_OK; }
  HRESULT COMClassicVTableCreated(ClassID, const GUID& iid, void* vtable, ULONG slots) override { return clr::S_OK; }
  HRESULT COMClassicVTableDestroyed(ClassID, const GUID& iid, void* vtable) override { return clr::S_OK; }
  HRESULT ExceptionCLRCatcherFound() override { return clr::S_OK; }
  HRESULT ExceptionCLRCatcherExecute() override { return clr::S_OK; }
  HRESULT ThreadNameChanged(ThreadID, ULONG cch_name, WCHAR name[]) override { return clr::S_OK; }
  HRESULT GarbageCollectionStarted(int generations, BOOL collected[], COR_PRF_GC_REASON) override { return clr::S_OK; }
  HRESULT SurvivingReferences(ULONG count, ObjectID starts[], ULONG lengths[]) override { return clr::S_OK; }
  HRESULT GarbageCollectionFinished() override { return clr::S_OK; }
  HRESULT FinalizeableObjectQueued(DWORD flags, ObjectID) override { return clr::S_OK; }
  HRESULT RootReferences2(ULONG count, ObjectID refs[], COR_PRF_GC_ROOT_KIND kinds[], COR_PRF_GC_ROOT_FLAGS flags[], UINT_PTR ids[]) override { return clr::S_OK; }
  HRESULT HandleCreated(GCHandleID, ObjectID) override { return clr::S_OK; }
  HRESULT HandleDestroyed(GCHandleID) override { return clr::S_OK; }
  HRESULT InitializeForAttach(IUnknown* info, void* client_data, UINT client_data_size) override { return clr::S_OK; }
  HRESULT ProfilerAttachComplete() override { return clr::S_OK; }
  HRESULT ProfilerDetachSucceeded() override { return clr::S_OK; }
  HRESULT ReJITCompilationStarted(FunctionID, ReJITID, BOOL is_safe_to_block) override { return clr::S_OK; }
  HRESULT GetReJITParameters(ModuleID, mdMethodDef, ICorProfilerFunctionControl*) override { return clr::S_OK; }
  HRESULT ReJITCompilationFinished(FunctionID, ReJITID, HRESULT, BOOL is_safe_to_block) override { return clr::S_OK; }
  HRESULT ReJITError(ModuleID, mdMethodDef, FunctionID, HRESULT) override { return clr::S_OK; }
  HRESULT MovedReferences2(ULONG count, ObjectID old_starts[], ObjectID new_starts[], SIZE_T lengths[]) override { return clr::S_OK; }
  HRESULT SurvivingReferences2(ULONG count, ObjectID starts[], SIZE_T lengths[]) override { return clr::S_OK; }
  HRESULT ConditionalWeakTableElementReferences(ULONG count, ObjectID keys[], ObjectID values[], GCHandleID roots[]) override { return clr::S_OK; }
  HRESULT GetAssemblyReferences(const WCHAR* path, ICorProfilerAssemblyReferenceProvider*) override { return clr::S_OK; }
  HRESULT ModuleInMemorySymbolsUpdated(ModuleID) override { return clr::S_OK; }
  HRESULT DynamicMethodJITCompilationStarted(FunctionID, BOOL is_safe_to_block, LPCBYTE il_header, ULONG il_header_size) override { return clr::S_OK; }
  HRESULT DynamicMethodJITCompilationFinished(FunctionID, HRESULT, BOOL is_safe_to_block) override { return clr::S_OK; }
  HRESULT DynamicMethodUnloaded(FunctionID) override { return clr::S_OK; }
  HRESULT EventPipeEventDelivered(EVENTPIPE_PROVIDER, DWORD event_id, DWORD event_version, ULONG metadata_size, LPCBYTE metadata, ULONG data_size, LPCBYTE data, LPCGUID activity, LPCGUID related_activity, ThreadID event_thread, ULONG frame_count, UINT_PTR frames[]) override { return clr::S_OK; }
  HRESULT EventPipeProviderCreated(EVENTPIPE_PROVIDER) override { return clr::S_OK; }
  HRESULT LoadAsNotificationOnly(BOOL* notification_only) override { return clr::S_OK; }
};
// clang-format on

}  // namespace umbra
