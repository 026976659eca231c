// ICorProfilerInfo10 with every method answering E_NOTIMPL: a test's fake runtime overrides what it needs.
#pragma once

#include "clr/corprof.h"

namespace umbra::testing {

// clang-format off
struct UnimplementedProfilerInfo : clr::ICorProfilerInfo10 {
  clr::HRESULT QueryInterface(clr::REFIID, void**) override { return clr::E_NOTIMPL; }
  clr::ULONG AddRef() override { return 1; }
  clr::ULONG Release() override { return 1; }
  clr::HRESULT GetEventMask(clr::DWORD* events) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetFunctionFromIP(clr::LPCBYTE ip, clr::FunctionID* function) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetThreadInfo(clr::ThreadID, clr::DWORD* os_thread_id) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetCurrentThreadID(clr::ThreadID* thread) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetClassIDInfo(clr::ClassID, clr::ModuleID* module, clr::mdTypeDef* type) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetFunctionInfo(clr::FunctionID, clr::ClassID* cls, clr::ModuleID* module, clr::mdToken* token) override { return clr::E_NOTIMPL; }
  clr::HRESULT SetEventMask(clr::DWORD events) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetTokenAndMetaDataFromFunction(clr::FunctionID, clr::REFIID riid, clr::IUnknown** import, clr::mdToken* token) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetModuleInfo(clr::ModuleID, clr::LPCBYTE* base, clr::ULONG cch_name, clr::ULONG* pcch_name, clr::WCHAR name[], clr::AssemblyID* assembly) override { return clr::E_NOTIMPL; }
  clr::HRESULT DoStackSnapshot(clr::ThreadID, clr::StackSnapshotCallback* callback, clr::ULONG32 info_flags, void* client_data, clr::BYTE context[], clr::ULONG32 context_size) override { return clr::E_NOTIMPL; }
  clr::HRESULT SetEnterLeaveFunctionHooks2(clr::FunctionEnter2* enter, clr::FunctionLeave2* leave, clr::FunctionTailcall2* tailcall) override { return clr::E_NOTIMPL; }
  clr::HRESULT SetFunctionIDMapper2(clr::FunctionIDMapper2* mapper, void* client_data) override { return clr::E_NOTIMPL; }
  clr::HRESULT SetEnterLeaveFunctionHooks3(clr::FunctionEnter3* enter, clr::FunctionLeave3* leave, clr::FunctionTailcall3* tailcall) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetRuntimeInformation(clr::USHORT* clr_instance_id, clr::COR_PRF_RUNTIME_TYPE* runtime_type, clr::USHORT* major, clr::USHORT* minor, clr::USHORT* build, clr::USHORT* qfe, clr::ULONG cch_version, clr::ULONG* pcch_version, clr::WCHAR version[]) override { return clr::E_NOTIMPL; }
  clr::HRESULT EnumThreads(clr::ICorProfilerThreadEnum** threads) override { return clr::E_NOTIMPL; }
  clr::HRESULT InitializeCurrentThread() override { return clr::E_NOTIMPL; }
  clr::HRESULT GetEventMask2(clr::DWORD* low, clr::DWORD* high) override { return clr::E_NOTIMPL; }
  clr::HRESULT SetEventMask2(clr::DWORD low, clr::DWORD high) override { return clr::E_NOTIMPL; }
  clr::HRESULT SuspendRuntime() override { return clr::E_NOTIMPL; }
  clr::HRESULT ResumeRuntime() override { return clr::E_NOTIMPL; }
  clr::HRESULT GetClassFromObject(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetClassFromToken(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetCodeInfo(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetFunctionFromToken(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetHandleFromThread(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetObjectSize(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT IsArrayClass(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT SetEnterLeaveFunctionHooks(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT SetFunctionIDMapper(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetModuleMetaData(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetILFunctionBody(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetILFunctionBodyAllocator(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT SetILFunctionBody(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetAppDomainInfo(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetAssemblyInfo(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT SetFunctionReJIT(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT ForceGC(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT SetILInstrumentedCodeMap(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetInprocInspectionInterface(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetInprocInspectionIThisThread(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetThreadContext(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT BeginInprocDebugging(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT EndInprocDebugging(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetILToNativeMapping(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetFunctionInfo2(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetStringLayout(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetClassLayout(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetClassIDInfo2(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetCodeInfo2(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetClassFromTokenAndTypeArgs(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetFunctionFromTokenAndTypeArgs(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT EnumModuleFrozenObjects(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetArrayObjectInfo(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetBoxClassLayout(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetThreadAppDomain(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetRVAStaticAddress(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetAppDomainStaticAddress(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetThreadStaticAddress(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetContextStaticAddress(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetStaticFieldInfo(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetGenerationBounds(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetObjectGeneration(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetNotifiedExceptionClauseInfo(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT EnumJITedFunctions(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT RequestProfilerDetach(clr::DWORD) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetStringLayout2(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT SetEnterLeaveFunctionHooks3WithInfo(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetFunctionEnter3Info(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetFunctionLeave3Info(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetFunctionTailcall3Info(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT EnumModules(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetThreadStaticAddress2(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetAppDomainsContainingModule(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetModuleInfo2(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT RequestReJIT(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT RequestRevert(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetCodeInfo3(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetFunctionFromIP2(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetReJITIDs(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetILToNativeMapping2(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT EnumJITedFunctions2(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetObjectSize2(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT EnumNgenModuleMethodsInliningThisMethod(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT ApplyMetaData(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetInMemorySymbolsLength(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT ReadInMemorySymbols(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT IsFunctionDynamic(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetFunctionFromIP3(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetDynamicFunctionInfo(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetNativeCodeStartAddresses(clr::FunctionID, clr::ReJITID, clr::ULONG32, clr::ULONG32*,
                                           clr::UINT_PTR[]) override {
    return clr::E_NOTIMPL;
  }
  clr::HRESULT GetILToNativeMapping3(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetCodeInfo4(clr::UINT_PTR, clr::ULONG32, clr::ULONG32*, clr::COR_PRF_CODE_INFO[]) override {
    return clr::E_NOTIMPL;
  }
  clr::HRESULT EnumerateObjectReferences(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT IsFrozenObject(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetLOHObjectSizeThreshold(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT RequestReJITWithInliners(...) override { return clr::E_NOTIMPL; }
};
// clang-format on

}  // namespace umbra::testing
