// Pins the vtable slots umbra relies on: a wrong slot calls the wrong runtime method.
#include <gtest/gtest.h>

#include <cstring>

#include "clr/corprof.h"
#include "clr/guids.h"
#include "clr/metadata.h"

namespace umbra::clr {
namespace {

// Itanium C++ ABI: a pointer to a virtual member function holds 1 + the byte offset of its vtable entry.
template <typename MemberFunction>
size_t slot_of(MemberFunction member) {
  struct {
    uintptr_t ptr;
    ptrdiff_t adjust;
  } repr;
  static_assert(sizeof(member) == sizeof(repr));
  std::memcpy(&repr, &member, sizeof repr);
  EXPECT_EQ(repr.ptr % sizeof(void*), 1u) << "not a virtual member function";
  return (repr.ptr - 1) / sizeof(void*);
}

TEST(ClrAbi, ScalarTypesMatchThePal) {
  static_assert(sizeof(WCHAR) == 2);
  static_assert(sizeof(ULONG) == 4 && sizeof(LONG) == 4 && sizeof(DWORD) == 4 && sizeof(HRESULT) == 4);
  static_assert(sizeof(BOOL) == 4);
  static_assert(sizeof(UINT_PTR) == 8 && sizeof(FunctionID) == 8 && sizeof(ThreadID) == 8);
  static_assert(sizeof(mdToken) == 4);
  static_assert(sizeof(GUID) == 16);
  SUCCEED();
}

TEST(ClrAbi, UnknownAndFactorySlots) {
  EXPECT_EQ(slot_of(&IUnknown::QueryInterface), 0u);
  EXPECT_EQ(slot_of(&IUnknown::AddRef), 1u);
  EXPECT_EQ(slot_of(&IUnknown::Release), 2u);
  EXPECT_EQ(slot_of(&IClassFactory::CreateInstance), 3u);
  EXPECT_EQ(slot_of(&IClassFactory::LockServer), 4u);
}

TEST(ClrAbi, CallbackSlots) {
  EXPECT_EQ(slot_of(&ICorProfilerCallback::Initialize), 3u);
  EXPECT_EQ(slot_of(&ICorProfilerCallback::Shutdown), 4u);
  EXPECT_EQ(slot_of(&ICorProfilerCallback::JITCompilationFinished), 24u);
  EXPECT_EQ(slot_of(&ICorProfilerCallback::ThreadCreated), 29u);
  EXPECT_EQ(slot_of(&ICorProfilerCallback::ThreadDestroyed), 30u);
  EXPECT_EQ(slot_of(&ICorProfilerCallback::ThreadAssignedToOSThread), 31u);
  EXPECT_EQ(slot_of(&ICorProfilerCallback::ExceptionThrown), 54u);
  EXPECT_EQ(slot_of(&ICorProfilerCallback::ExceptionSearchCatcherFound), 59u);
  EXPECT_EQ(slot_of(&ICorProfilerCallback::ExceptionUnwindFunctionEnter), 62u);
  EXPECT_EQ(slot_of(&ICorProfilerCallback::ExceptionUnwindFunctionLeave), 63u);
  EXPECT_EQ(slot_of(&ICorProfilerCallback::ExceptionCatcherEnter), 66u);
  EXPECT_EQ(slot_of(&ICorProfilerCallback::ExceptionCLRCatcherExecute), 71u);
  EXPECT_EQ(slot_of(&ICorProfilerCallback2::ThreadNameChanged), 72u);
  EXPECT_EQ(slot_of(&ICorProfilerCallback2::HandleDestroyed), 79u);
  EXPECT_EQ(slot_of(&ICorProfilerCallback3::ProfilerDetachSucceeded), 82u);
  EXPECT_EQ(slot_of(&ICorProfilerCallback4::SurvivingReferences2), 88u);
  EXPECT_EQ(slot_of(&ICorProfilerCallback5::ConditionalWeakTableElementReferences), 89u);
  EXPECT_EQ(slot_of(&ICorProfilerCallback6::GetAssemblyReferences), 90u);
  EXPECT_EQ(slot_of(&ICorProfilerCallback7::ModuleInMemorySymbolsUpdated), 91u);
  EXPECT_EQ(slot_of(&ICorProfilerCallback8::DynamicMethodJITCompilationStarted), 92u);
  EXPECT_EQ(slot_of(&ICorProfilerCallback9::DynamicMethodUnloaded), 94u);
  EXPECT_EQ(slot_of(&ICorProfilerCallback10::EventPipeEventDelivered), 95u);
  EXPECT_EQ(slot_of(&ICorProfilerCallback11::LoadAsNotificationOnly), 97u);
}

TEST(ClrAbi, CodeInfoLayout) { EXPECT_EQ(sizeof(COR_PRF_CODE_INFO), 16u); }

TEST(ClrAbi, InfoSlots) {
  EXPECT_EQ(slot_of(&ICorProfilerInfo::GetEventMask), 6u);
  EXPECT_EQ(slot_of(&ICorProfilerInfo::GetFunctionFromIP), 7u);
  EXPECT_EQ(slot_of(&ICorProfilerInfo::GetThreadInfo), 12u);
  EXPECT_EQ(slot_of(&ICorProfilerInfo::GetCurrentThreadID), 13u);
  EXPECT_EQ(slot_of(&ICorProfilerInfo::GetClassIDInfo), 14u);
  EXPECT_EQ(slot_of(&ICorProfilerInfo::GetFunctionInfo), 15u);
  EXPECT_EQ(slot_of(&ICorProfilerInfo::SetEventMask), 16u);
  EXPECT_EQ(slot_of(&ICorProfilerInfo::GetTokenAndMetaDataFromFunction), 19u);
  EXPECT_EQ(slot_of(&ICorProfilerInfo::GetModuleInfo), 20u);
  EXPECT_EQ(slot_of(&ICorProfilerInfo::GetILToNativeMapping), 35u);
  EXPECT_EQ(slot_of(&ICorProfilerInfo2::DoStackSnapshot), 36u);
  EXPECT_EQ(slot_of(&ICorProfilerInfo2::SetEnterLeaveFunctionHooks2), 37u);
  EXPECT_EQ(slot_of(&ICorProfilerInfo2::GetNotifiedExceptionClauseInfo), 56u);
  EXPECT_EQ(slot_of(&ICorProfilerInfo3::RequestProfilerDetach), 58u);
  EXPECT_EQ(slot_of(&ICorProfilerInfo3::SetFunctionIDMapper2), 59u);
  EXPECT_EQ(slot_of(&ICorProfilerInfo3::SetEnterLeaveFunctionHooks3), 61u);
  EXPECT_EQ(slot_of(&ICorProfilerInfo3::GetRuntimeInformation), 67u);
  EXPECT_EQ(slot_of(&ICorProfilerInfo4::EnumThreads), 71u);
  EXPECT_EQ(slot_of(&ICorProfilerInfo4::InitializeCurrentThread), 72u);
  EXPECT_EQ(slot_of(&ICorProfilerInfo5::SetEventMask2), 82u);
  EXPECT_EQ(slot_of(&ICorProfilerInfo9::GetNativeCodeStartAddresses), 90u);
  EXPECT_EQ(slot_of(&ICorProfilerInfo9::GetCodeInfo4), 92u);
  EXPECT_EQ(slot_of(&ICorProfilerInfo10::SuspendRuntime), 97u);
  EXPECT_EQ(slot_of(&ICorProfilerInfo10::ResumeRuntime), 98u);
}

TEST(ClrAbi, EnumAndMetadataSlots) {
  EXPECT_EQ(slot_of(&ICorProfilerThreadEnum::GetCount), 6u);
  EXPECT_EQ(slot_of(&ICorProfilerThreadEnum::Next), 7u);
  EXPECT_EQ(slot_of(&IMetaDataImport::GetTypeDefProps), 12u);
  EXPECT_EQ(slot_of(&IMetaDataImport::GetMethodProps), 30u);
  EXPECT_EQ(slot_of(&IMetaDataImport::GetNestedClassProps), 62u);
  EXPECT_EQ(slot_of(&IMetaDataImport::IsGlobal), 64u);
}

TEST(ClrAbi, GuidsHaveTheDocumentedBytes) {
  EXPECT_EQ(IID_ICorProfilerCallback2.data1, 0x8A8CC829u);
  EXPECT_EQ(IID_ICorProfilerCallback2.data4[7], 0x1A);
  EXPECT_EQ(IID_ICorProfilerInfo10.data1, 0x2F1B5152u);
  EXPECT_EQ(IID_ICorProfilerInfo10.data4[7], 0x20);
  EXPECT_EQ(IID_IMetaDataImport.data2, 0xD3AE);
  EXPECT_FALSE(IID_ICorProfilerCallback10 == IID_ICorProfilerCallback11);
}

}  // namespace
}  // namespace umbra::clr
