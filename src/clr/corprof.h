// The CoreCLR profiling interfaces umbra implements (ICorProfilerCallback..11) and calls (ICorProfilerInfo..10),
// declared from the documented slot orders. Only slot ORDER matters to the ABI; methods umbra never calls are
// declared with UMBRA_UNUSED_SLOT to keep their place. tests/unit/clr_abi_test.cpp pins the indices.
#pragma once

#include "clr/pal.h"

namespace umbra::clr {

using ThreadID = UINT_PTR;
using FunctionID = UINT_PTR;
// A FunctionID, or the clientData a FunctionIDMapper2 returned for it.
using FunctionIDOrClientID = UINT_PTR;
using ModuleID = UINT_PTR;
using ClassID = UINT_PTR;
using AssemblyID = UINT_PTR;
using AppDomainID = UINT_PTR;
using ObjectID = UINT_PTR;
using ProcessID = UINT_PTR;
using GCHandleID = UINT_PTR;
using ReJITID = UINT_PTR;
using COR_PRF_FRAME_INFO = UINT_PTR;
using COR_PRF_ELT_INFO = UINT_PTR;
using EVENTPIPE_PROVIDER = UINT_PTR;
using mdToken = uint32_t;
using mdTypeDef = mdToken;
using mdMethodDef = mdToken;
using LPCGUID = const GUID*;

struct COR_PRF_FUNCTION_ARGUMENT_RANGE {
  UINT_PTR start_address;
  ULONG length;
};
struct COR_PRF_FUNCTION_ARGUMENT_INFO {
  ULONG num_ranges;
  ULONG total_argument_size;
  COR_PRF_FUNCTION_ARGUMENT_RANGE ranges[1];
};
static_assert(sizeof(COR_PRF_FUNCTION_ARGUMENT_RANGE) == 16);
static_assert(offsetof(COR_PRF_FUNCTION_ARGUMENT_INFO, ranges) == 8);

// COR_PRF_MONITOR (SetEventMask, low word).
enum : DWORD {
  COR_PRF_MONITOR_MODULE_LOADS = 0x4,
  COR_PRF_MONITOR_JIT_COMPILATION = 0x20,
  COR_PRF_MONITOR_EXCEPTIONS = 0x40,
  COR_PRF_MONITOR_THREADS = 0x200,
  COR_PRF_MONITOR_ENTERLEAVE = 0x1000,
  COR_PRF_MONITOR_SUSPENDS = 0x10000,
  COR_PRF_MONITOR_CACHE_SEARCHES = 0x20000,
  COR_PRF_DISABLE_INLINING = 0x200000,
  COR_PRF_DISABLE_OPTIMIZATIONS = 0x400000,
  COR_PRF_ENABLE_FUNCTION_ARGS = 0x2000000,
  COR_PRF_ENABLE_FUNCTION_RETVAL = 0x4000000,
  COR_PRF_ENABLE_FRAME_INFO = 0x8000000,
  COR_PRF_ENABLE_STACK_SNAPSHOT = 0x10000000,
  COR_PRF_DISABLE_ALL_NGEN_IMAGES = 0x80000000,
};
// COR_PRF_HIGH_MONITOR (SetEventMask2, high word).
enum : DWORD {
  COR_PRF_HIGH_DISABLE_TIERED_COMPILATION = 0x8,
};
enum : ULONG32 {
  COR_PRF_SNAPSHOT_DEFAULT = 0x0,
  COR_PRF_SNAPSHOT_REGISTER_CONTEXT = 0x1,
};
enum COR_PRF_JIT_CACHE : int32_t { COR_PRF_CACHED_FUNCTION_FOUND = 0, COR_PRF_CACHED_FUNCTION_NOT_FOUND = 1 };
enum COR_PRF_TRANSITION_REASON : int32_t { COR_PRF_TRANSITION_CALL = 0, COR_PRF_TRANSITION_RETURN = 1 };
enum COR_PRF_SUSPEND_REASON : int32_t { COR_PRF_SUSPEND_OTHER = 0 };
enum COR_PRF_GC_REASON : int32_t { COR_PRF_GC_OTHER = 0 };
enum COR_PRF_RUNTIME_TYPE : int32_t { COR_PRF_DESKTOP_CLR = 1, COR_PRF_CORE_CLR = 2 };
using COR_PRF_GC_ROOT_KIND = int32_t;
using COR_PRF_GC_ROOT_FLAGS = int32_t;

// ELT2 hooks. Called through the runtime's register-saving stub, so they are ordinary functions.
using FunctionEnter2 = void(FunctionID, UINT_PTR client_data, COR_PRF_FRAME_INFO, COR_PRF_FUNCTION_ARGUMENT_INFO*);
using FunctionLeave2 = void(FunctionID, UINT_PTR client_data, COR_PRF_FRAME_INFO, COR_PRF_FUNCTION_ARGUMENT_RANGE*);
using FunctionTailcall2 = void(FunctionID, UINT_PTR client_data, COR_PRF_FRAME_INFO);
using FunctionIDMapper2 = UINT_PTR(FunctionID, void* client_data, BOOL* hook_function);
// ELT3 fast-path hooks: the JIT calls them directly from prologs and epilogs. On Unix x86-64 they are not ordinary
// functions (enter gets its argument in R14; all argument and return registers must survive): only assembly
// trampolines may be registered. The declared type is what the runtime's interface takes.
using FunctionEnter3 = void(FunctionIDOrClientID);
using FunctionLeave3 = void(FunctionIDOrClientID);
using FunctionTailcall3 = void(FunctionIDOrClientID);
using StackSnapshotCallback = HRESULT(FunctionID, UINT_PTR ip, COR_PRF_FRAME_INFO, ULONG32 context_size, BYTE context[],
                                      void* client_data);

struct ICorProfilerFunctionControl;
struct ICorProfilerAssemblyReferenceProvider;

// clang-format off
struct ICorProfilerCallback : IUnknown {
  virtual HRESULT Initialize(IUnknown* info) = 0;                                          // 3
  virtual HRESULT Shutdown() = 0;
  virtual HRESULT AppDomainCreationStarted(AppDomainID) = 0;
  virtual HRESULT AppDomainCreationFinished(AppDomainID, HRESULT) = 0;
  virtual HRESULT AppDomainShutdownStarted(AppDomainID) = 0;
  virtual HRESULT AppDomainShutdownFinished(AppDomainID, HRESULT) = 0;
  virtual HRESULT AssemblyLoadStarted(AssemblyID) = 0;
  virtual HRESULT AssemblyLoadFinished(AssemblyID, HRESULT) = 0;
  virtual HRESULT AssemblyUnloadStarted(AssemblyID) = 0;
  virtual HRESULT AssemblyUnloadFinished(AssemblyID, HRESULT) = 0;
  virtual HRESULT ModuleLoadStarted(ModuleID) = 0;
  virtual HRESULT ModuleLoadFinished(ModuleID, HRESULT) = 0;
  virtual HRESULT ModuleUnloadStarted(ModuleID) = 0;
  virtual HRESULT ModuleUnloadFinished(ModuleID, HRESULT) = 0;
  virtual HRESULT ModuleAttachedToAssembly(ModuleID, AssemblyID) = 0;
  virtual HRESULT ClassLoadStarted(ClassID) = 0;
  virtual HRESULT ClassLoadFinished(ClassID, HRESULT) = 0;
  virtual HRESULT ClassUnloadStarted(ClassID) = 0;
  virtual HRESULT ClassUnloadFinished(ClassID, HRESULT) = 0;
  virtual HRESULT FunctionUnloadStarted(FunctionID) = 0;
  virtual HRESULT JITCompilationStarted(FunctionID, BOOL is_safe_to_block) = 0;
  virtual HRESULT JITCompilationFinished(FunctionID, HRESULT, BOOL is_safe_to_block) = 0;
  virtual HRESULT JITCachedFunctionSearchStarted(FunctionID, BOOL* use_cached_function) = 0;
  virtual HRESULT JITCachedFunctionSearchFinished(FunctionID, COR_PRF_JIT_CACHE) = 0;
  virtual HRESULT JITFunctionPitched(FunctionID) = 0;
  virtual HRESULT JITInlining(FunctionID caller, FunctionID callee, BOOL* should_inline) = 0;
  virtual HRESULT ThreadCreated(ThreadID) = 0;                                              // 29
  virtual HRESULT ThreadDestroyed(ThreadID) = 0;                                            // 30
  virtual HRESULT ThreadAssignedToOSThread(ThreadID, DWORD os_thread_id) = 0;               // 31
  virtual HRESULT RemotingClientInvocationStarted() = 0;
  virtual HRESULT RemotingClientSendingMessage(GUID* cookie, BOOL is_async) = 0;
  virtual HRESULT RemotingClientReceivingReply(GUID* cookie, BOOL is_async) = 0;
  virtual HRESULT RemotingClientInvocationFinished() = 0;
  virtual HRESULT RemotingServerReceivingMessage(GUID* cookie, BOOL is_async) = 0;
  virtual HRESULT RemotingServerInvocationStarted() = 0;
  virtual HRESULT RemotingServerInvocationReturned() = 0;
  virtual HRESULT RemotingServerSendingReply(GUID* cookie, BOOL is_async) = 0;
  virtual HRESULT UnmanagedToManagedTransition(FunctionID, COR_PRF_TRANSITION_REASON) = 0;
  virtual HRESULT ManagedToUnmanagedTransition(FunctionID, COR_PRF_TRANSITION_REASON) = 0;
  virtual HRESULT RuntimeSuspendStarted(COR_PRF_SUSPEND_REASON) = 0;
  virtual HRESULT RuntimeSuspendFinished() = 0;
  virtual HRESULT RuntimeSuspendAborted() = 0;
  virtual HRESULT RuntimeResumeStarted() = 0;
  virtual HRESULT RuntimeResumeFinished() = 0;
  virtual HRESULT RuntimeThreadSuspended(ThreadID) = 0;
  virtual HRESULT RuntimeThreadResumed(ThreadID) = 0;
  virtual HRESULT MovedReferences(ULONG count, ObjectID old_starts[], ObjectID new_starts[], ULONG lengths[]) = 0;
  virtual HRESULT ObjectAllocated(ObjectID, ClassID) = 0;
  virtual HRESULT ObjectsAllocatedByClass(ULONG count, ClassID classes[], ULONG objects[]) = 0;
  virtual HRESULT ObjectReferences(ObjectID, ClassID, ULONG count, ObjectID refs[]) = 0;
  virtual HRESULT RootReferences(ULONG count, ObjectID refs[]) = 0;
  virtual HRESULT ExceptionThrown(ObjectID) = 0;                                            // 54
  virtual HRESULT ExceptionSearchFunctionEnter(FunctionID) = 0;
  virtual HRESULT ExceptionSearchFunctionLeave() = 0;
  virtual HRESULT ExceptionSearchFilterEnter(FunctionID) = 0;
  virtual HRESULT ExceptionSearchFilterLeave() = 0;
  virtual HRESULT ExceptionSearchCatcherFound(FunctionID) = 0;
  virtual HRESULT ExceptionOSHandlerEnter(UINT_PTR) = 0;
  virtual HRESULT ExceptionOSHandlerLeave(UINT_PTR) = 0;
  virtual HRESULT ExceptionUnwindFunctionEnter(FunctionID) = 0;                             // 62
  virtual HRESULT ExceptionUnwindFunctionLeave() = 0;                                       // 63
  virtual HRESULT ExceptionUnwindFinallyEnter(FunctionID) = 0;
  virtual HRESULT ExceptionUnwindFinallyLeave() = 0;
  virtual HRESULT ExceptionCatcherEnter(FunctionID, ObjectID) = 0;                          // 66
  virtual HRESULT ExceptionCatcherLeave() = 0;
  virtual HRESULT COMClassicVTableCreated(ClassID, const GUID& iid, void* vtable, ULONG slots) = 0;
  virtual HRESULT COMClassicVTableDestroyed(ClassID, const GUID& iid, void* vtable) = 0;
  virtual HRESULT ExceptionCLRCatcherFound() = 0;
  virtual HRESULT ExceptionCLRCatcherExecute() = 0;                                         // 71
};

struct ICorProfilerCallback2 : ICorProfilerCallback {
  virtual HRESULT ThreadNameChanged(ThreadID, ULONG cch_name, WCHAR name[]) = 0;           // 72
  virtual HRESULT GarbageCollectionStarted(int generations, BOOL collected[], COR_PRF_GC_REASON) = 0;
  virtual HRESULT SurvivingReferences(ULONG count, ObjectID starts[], ULONG lengths[]) = 0;
  virtual HRESULT GarbageCollectionFinished() = 0;
  virtual HRESULT FinalizeableObjectQueued(DWORD flags, ObjectID) = 0;
  virtual HRESULT RootReferences2(ULONG count, ObjectID refs[], COR_PRF_GC_ROOT_KIND kinds[],
                                  COR_PRF_GC_ROOT_FLAGS flags[], UINT_PTR ids[]) = 0;
  virtual HRESULT HandleCreated(GCHandleID, ObjectID) = 0;
  virtual HRESULT HandleDestroyed(GCHandleID) = 0;                                          // 79
};
struct ICorProfilerCallback3 : ICorProfilerCallback2 {
  virtual HRESULT InitializeForAttach(IUnknown* info, void* client_data, UINT client_data_size) = 0;
  virtual HRESULT ProfilerAttachComplete() = 0;
  virtual HRESULT ProfilerDetachSucceeded() = 0;                                            // 82
};
struct ICorProfilerCallback4 : ICorProfilerCallback3 {
  virtual HRESULT ReJITCompilationStarted(FunctionID, ReJITID, BOOL is_safe_to_block) = 0;
  virtual HRESULT GetReJITParameters(ModuleID, mdMethodDef, ICorProfilerFunctionControl*) = 0;
  virtual HRESULT ReJITCompilationFinished(FunctionID, ReJITID, HRESULT, BOOL is_safe_to_block) = 0;
  virtual HRESULT ReJITError(ModuleID, mdMethodDef, FunctionID, HRESULT) = 0;
  virtual HRESULT MovedReferences2(ULONG count, ObjectID old_starts[], ObjectID new_starts[], SIZE_T lengths[]) = 0;
  virtual HRESULT SurvivingReferences2(ULONG count, ObjectID starts[], SIZE_T lengths[]) = 0;  // 88
};
struct ICorProfilerCallback5 : ICorProfilerCallback4 {
  virtual HRESULT ConditionalWeakTableElementReferences(ULONG count, ObjectID keys[], ObjectID values[],
                                                        GCHandleID roots[]) = 0;           // 89
};
struct ICorProfilerCallback6 : ICorProfilerCallback5 {
  virtual HRESULT GetAssemblyReferences(const WCHAR* path, ICorProfilerAssemblyReferenceProvider*) = 0;  // 90
};
struct ICorProfilerCallback7 : ICorProfilerCallback6 {
  virtual HRESULT ModuleInMemorySymbolsUpdated(ModuleID) = 0;                               // 91
};
struct ICorProfilerCallback8 : ICorProfilerCallback7 {
  virtual HRESULT DynamicMethodJITCompilationStarted(FunctionID, BOOL is_safe_to_block, LPCBYTE il_header,
                                                     ULONG il_header_size) = 0;             // 92
  virtual HRESULT DynamicMethodJITCompilationFinished(FunctionID, HRESULT, BOOL is_safe_to_block) = 0;
};
struct ICorProfilerCallback9 : ICorProfilerCallback8 {
  virtual HRESULT DynamicMethodUnloaded(FunctionID) = 0;                                    // 94
};
struct ICorProfilerCallback10 : ICorProfilerCallback9 {
  virtual HRESULT EventPipeEventDelivered(EVENTPIPE_PROVIDER, DWORD event_id, DWORD event_version,
                                          ULONG metadata_size, LPCBYTE metadata, ULONG data_size, LPCBYTE data,
                                          LPCGUID activity, LPCGUID related_activity, ThreadID event_thread,
                                          ULONG frame_count, UINT_PTR frames[]) = 0;       // 95
  virtual HRESULT EventPipeProviderCreated(EVENTPIPE_PROVIDER) = 0;
};
struct ICorProfilerCallback11 : ICorProfilerCallback10 {
  virtual HRESULT LoadAsNotificationOnly(BOOL* notification_only) = 0;                      // 97
};

// Methods umbra never calls keep their slot with a variadic placeholder that nothing invokes.
#define UMBRA_UNUSED_SLOT(name) virtual HRESULT name(...) = 0

struct ICorProfilerThreadEnum : IUnknown {
  UMBRA_UNUSED_SLOT(Skip);
  UMBRA_UNUSED_SLOT(Reset);
  UMBRA_UNUSED_SLOT(Clone);
  virtual HRESULT GetCount(ULONG* count) = 0;                                               // 6
  virtual HRESULT Next(ULONG wanted, ThreadID ids[], ULONG* fetched) = 0;                   // 7
};

struct ICorProfilerInfo : IUnknown {
  UMBRA_UNUSED_SLOT(GetClassFromObject);                                                    // 3
  UMBRA_UNUSED_SLOT(GetClassFromToken);
  UMBRA_UNUSED_SLOT(GetCodeInfo);
  virtual HRESULT GetEventMask(DWORD* events) = 0;                                          // 6
  virtual HRESULT GetFunctionFromIP(LPCBYTE ip, FunctionID* function) = 0;                  // 7
  UMBRA_UNUSED_SLOT(GetFunctionFromToken);
  UMBRA_UNUSED_SLOT(GetHandleFromThread);
  UMBRA_UNUSED_SLOT(GetObjectSize);
  UMBRA_UNUSED_SLOT(IsArrayClass);
  virtual HRESULT GetThreadInfo(ThreadID, DWORD* os_thread_id) = 0;                         // 12
  virtual HRESULT GetCurrentThreadID(ThreadID* thread) = 0;                                 // 13
  virtual HRESULT GetClassIDInfo(ClassID, ModuleID* module, mdTypeDef* type) = 0;           // 14
  virtual HRESULT GetFunctionInfo(FunctionID, ClassID* cls, ModuleID* module, mdToken* token) = 0;  // 15
  virtual HRESULT SetEventMask(DWORD events) = 0;                                           // 16
  UMBRA_UNUSED_SLOT(SetEnterLeaveFunctionHooks);
  UMBRA_UNUSED_SLOT(SetFunctionIDMapper);
  virtual HRESULT GetTokenAndMetaDataFromFunction(FunctionID, REFIID riid, IUnknown** import,
                                                  mdToken* token) = 0;                      // 19
  virtual HRESULT GetModuleInfo(ModuleID, LPCBYTE* base, ULONG cch_name, ULONG* pcch_name, WCHAR name[],
                                AssemblyID* assembly) = 0;                                  // 20
  UMBRA_UNUSED_SLOT(GetModuleMetaData);
  UMBRA_UNUSED_SLOT(GetILFunctionBody);
  UMBRA_UNUSED_SLOT(GetILFunctionBodyAllocator);
  UMBRA_UNUSED_SLOT(SetILFunctionBody);
  UMBRA_UNUSED_SLOT(GetAppDomainInfo);
  UMBRA_UNUSED_SLOT(GetAssemblyInfo);
  UMBRA_UNUSED_SLOT(SetFunctionReJIT);
  UMBRA_UNUSED_SLOT(ForceGC);
  UMBRA_UNUSED_SLOT(SetILInstrumentedCodeMap);
  UMBRA_UNUSED_SLOT(GetInprocInspectionInterface);
  UMBRA_UNUSED_SLOT(GetInprocInspectionIThisThread);
  UMBRA_UNUSED_SLOT(GetThreadContext);
  UMBRA_UNUSED_SLOT(BeginInprocDebugging);
  UMBRA_UNUSED_SLOT(EndInprocDebugging);
  UMBRA_UNUSED_SLOT(GetILToNativeMapping);                                                  // 35
};

struct ICorProfilerInfo2 : ICorProfilerInfo {
  virtual HRESULT DoStackSnapshot(ThreadID, StackSnapshotCallback* callback, ULONG32 info_flags, void* client_data,
                                  BYTE context[], ULONG32 context_size) = 0;                // 36
  virtual HRESULT SetEnterLeaveFunctionHooks2(FunctionEnter2* enter, FunctionLeave2* leave,
                                              FunctionTailcall2* tailcall) = 0;             // 37
  UMBRA_UNUSED_SLOT(GetFunctionInfo2);
  UMBRA_UNUSED_SLOT(GetStringLayout);
  UMBRA_UNUSED_SLOT(GetClassLayout);
  UMBRA_UNUSED_SLOT(GetClassIDInfo2);
  UMBRA_UNUSED_SLOT(GetCodeInfo2);
  UMBRA_UNUSED_SLOT(GetClassFromTokenAndTypeArgs);
  UMBRA_UNUSED_SLOT(GetFunctionFromTokenAndTypeArgs);
  UMBRA_UNUSED_SLOT(EnumModuleFrozenObjects);
  UMBRA_UNUSED_SLOT(GetArrayObjectInfo);
  UMBRA_UNUSED_SLOT(GetBoxClassLayout);
  UMBRA_UNUSED_SLOT(GetThreadAppDomain);
  UMBRA_UNUSED_SLOT(GetRVAStaticAddress);
  UMBRA_UNUSED_SLOT(GetAppDomainStaticAddress);
  UMBRA_UNUSED_SLOT(GetThreadStaticAddress);
  UMBRA_UNUSED_SLOT(GetContextStaticAddress);
  UMBRA_UNUSED_SLOT(GetStaticFieldInfo);
  UMBRA_UNUSED_SLOT(GetGenerationBounds);
  UMBRA_UNUSED_SLOT(GetObjectGeneration);
  UMBRA_UNUSED_SLOT(GetNotifiedExceptionClauseInfo);                                        // 56
};

struct ICorProfilerInfo3 : ICorProfilerInfo2 {
  UMBRA_UNUSED_SLOT(EnumJITedFunctions);                                                    // 57
  // Asks the runtime to unload the profiler once no thread is inside it (an attached session's end).
  virtual HRESULT RequestProfilerDetach(DWORD expected_completion_ms) = 0;                 // 58
  virtual HRESULT SetFunctionIDMapper2(FunctionIDMapper2* mapper, void* client_data) = 0;   // 59
  UMBRA_UNUSED_SLOT(GetStringLayout2);
  virtual HRESULT SetEnterLeaveFunctionHooks3(FunctionEnter3* enter, FunctionLeave3* leave,
                                              FunctionTailcall3* tailcall) = 0;            // 61
  UMBRA_UNUSED_SLOT(SetEnterLeaveFunctionHooks3WithInfo);
  UMBRA_UNUSED_SLOT(GetFunctionEnter3Info);
  UMBRA_UNUSED_SLOT(GetFunctionLeave3Info);
  UMBRA_UNUSED_SLOT(GetFunctionTailcall3Info);
  UMBRA_UNUSED_SLOT(EnumModules);
  virtual HRESULT GetRuntimeInformation(USHORT* clr_instance_id, COR_PRF_RUNTIME_TYPE* runtime_type, USHORT* major,
                                        USHORT* minor, USHORT* build, USHORT* qfe, ULONG cch_version,
                                        ULONG* pcch_version, WCHAR version[]) = 0;          // 67
  UMBRA_UNUSED_SLOT(GetThreadStaticAddress2);
  UMBRA_UNUSED_SLOT(GetAppDomainsContainingModule);
  UMBRA_UNUSED_SLOT(GetModuleInfo2);                                                        // 70
};

struct ICorProfilerInfo4 : ICorProfilerInfo3 {
  virtual HRESULT EnumThreads(ICorProfilerThreadEnum** threads) = 0;                        // 71
  virtual HRESULT InitializeCurrentThread() = 0;                                            // 72
  UMBRA_UNUSED_SLOT(RequestReJIT);
  UMBRA_UNUSED_SLOT(RequestRevert);
  UMBRA_UNUSED_SLOT(GetCodeInfo3);
  UMBRA_UNUSED_SLOT(GetFunctionFromIP2);
  UMBRA_UNUSED_SLOT(GetReJITIDs);
  UMBRA_UNUSED_SLOT(GetILToNativeMapping2);
  UMBRA_UNUSED_SLOT(EnumJITedFunctions2);
  UMBRA_UNUSED_SLOT(GetObjectSize2);                                                        // 80
};
struct ICorProfilerInfo5 : ICorProfilerInfo4 {
  virtual HRESULT GetEventMask2(DWORD* low, DWORD* high) = 0;                               // 81
  virtual HRESULT SetEventMask2(DWORD low, DWORD high) = 0;                                 // 82
};
struct ICorProfilerInfo6 : ICorProfilerInfo5 {
  UMBRA_UNUSED_SLOT(EnumNgenModuleMethodsInliningThisMethod);                               // 83
};
struct ICorProfilerInfo7 : ICorProfilerInfo6 {
  UMBRA_UNUSED_SLOT(ApplyMetaData);                                                         // 84
  UMBRA_UNUSED_SLOT(GetInMemorySymbolsLength);
  UMBRA_UNUSED_SLOT(ReadInMemorySymbols);
};
struct ICorProfilerInfo8 : ICorProfilerInfo7 {
  UMBRA_UNUSED_SLOT(IsFunctionDynamic);                                                     // 87
  UMBRA_UNUSED_SLOT(GetFunctionFromIP3);
  UMBRA_UNUSED_SLOT(GetDynamicFunctionInfo);
};
struct COR_PRF_CODE_INFO {
  UINT_PTR startAddress;
  SIZE_T size;
};
struct ICorProfilerInfo9 : ICorProfilerInfo8 {
  // Every native code version of a method (tiers, ReJIT 0: the original IL).
  virtual HRESULT GetNativeCodeStartAddresses(FunctionID function, ReJITID rejit, ULONG32 capacity, ULONG32* count,
                                              UINT_PTR starts[]) = 0;                        // 90
  UMBRA_UNUSED_SLOT(GetILToNativeMapping3);
  virtual HRESULT GetCodeInfo4(UINT_PTR start, ULONG32 capacity, ULONG32* count, COR_PRF_CODE_INFO infos[]) = 0;
};
struct ICorProfilerInfo10 : ICorProfilerInfo9 {
  UMBRA_UNUSED_SLOT(EnumerateObjectReferences);                                             // 93
  UMBRA_UNUSED_SLOT(IsFrozenObject);
  UMBRA_UNUSED_SLOT(GetLOHObjectSizeThreshold);
  UMBRA_UNUSED_SLOT(RequestReJITWithInliners);
  virtual HRESULT SuspendRuntime() = 0;                                                     // 97
  virtual HRESULT ResumeRuntime() = 0;                                                      // 98
};

// clang-format on

#undef UMBRA_UNUSED_SLOT

}  // namespace umbra::clr
