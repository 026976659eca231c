// Windows/PAL scalar types as CoreCLR uses them on linux-x64 (LP64), and the COM basics.
// Calling conventions (STDMETHODCALLTYPE, __stdcall) are empty on x86-64 Unix: plain SysV ABI.
#pragma once

#include <cstddef>
#include <cstdint>

namespace umbra::clr {

using BYTE = uint8_t;
using USHORT = uint16_t;
using WORD = uint16_t;
using UINT = uint32_t;
using LONG = int32_t;    // 4 bytes in the PAL, unlike Linux `long`
using ULONG = uint32_t;
using DWORD = uint32_t;
using ULONG32 = uint32_t;
using BOOL = int32_t;
using HRESULT = int32_t;
using DWORD64 = uint64_t;
using UINT_PTR = uintptr_t;
using SIZE_T = size_t;
using WCHAR = char16_t;  // 2 bytes; wchar_t is 4 on Linux
using LPCBYTE = const BYTE*;

inline constexpr BOOL TRUE_ = 1;
inline constexpr BOOL FALSE_ = 0;

struct GUID {
  uint32_t data1;
  uint16_t data2;
  uint16_t data3;
  uint8_t data4[8];
};
static_assert(sizeof(GUID) == 16);

using IID = GUID;
using CLSID = GUID;
using REFIID = const IID&;
using REFCLSID = const CLSID&;

inline bool operator==(const GUID& a, const GUID& b) {
  if (a.data1 != b.data1 || a.data2 != b.data2 || a.data3 != b.data3) return false;
  for (int i = 0; i < 8; ++i)
    if (a.data4[i] != b.data4[i]) return false;
  return true;
}

// HRESULTs umbra returns or tests for.
inline constexpr HRESULT S_OK = 0;
inline constexpr HRESULT S_FALSE = 1;
inline constexpr HRESULT E_NOTIMPL = static_cast<HRESULT>(0x80004001u);
inline constexpr HRESULT E_NOINTERFACE = static_cast<HRESULT>(0x80004002u);
inline constexpr HRESULT E_POINTER = static_cast<HRESULT>(0x80004003u);
inline constexpr HRESULT E_FAIL = static_cast<HRESULT>(0x80004005u);
inline constexpr HRESULT E_OUTOFMEMORY = static_cast<HRESULT>(0x8007000Eu);
inline constexpr HRESULT E_INVALIDARG = static_cast<HRESULT>(0x80070057u);
inline constexpr HRESULT CLASS_E_NOAGGREGATION = static_cast<HRESULT>(0x80040110u);
inline constexpr HRESULT CLASS_E_CLASSNOTAVAILABLE = static_cast<HRESULT>(0x80040111u);
inline constexpr HRESULT ERROR_INSUFFICIENT_BUFFER_HR = static_cast<HRESULT>(0x8007007Au);

inline constexpr HRESULT CORPROF_E_NOT_MANAGED_THREAD = static_cast<HRESULT>(0x80131355u);
inline constexpr HRESULT CORPROF_E_STACKSNAPSHOT_UNMANAGED_CTX = static_cast<HRESULT>(0x8013135Fu);
inline constexpr HRESULT CORPROF_E_STACKSNAPSHOT_UNSAFE = static_cast<HRESULT>(0x80131360u);
inline constexpr HRESULT CORPROF_E_STACKSNAPSHOT_ABORTED = static_cast<HRESULT>(0x80131361u);
inline constexpr HRESULT CORPROF_E_INCONSISTENT_WITH_FLAGS = static_cast<HRESULT>(0x80131374u);
inline constexpr HRESULT CORPROF_E_PROFILER_DETACHING = static_cast<HRESULT>(0x80131367u);
inline constexpr HRESULT CORPROF_E_PROFILER_NOT_ATTACHABLE = static_cast<HRESULT>(0x80131368u);
inline constexpr HRESULT CORPROF_E_PROFILER_ALREADY_ACTIVE = static_cast<HRESULT>(0x8013136Au);
inline constexpr HRESULT CORPROF_E_PROFILER_CANCEL_ACTIVATION = static_cast<HRESULT>(0x80131375u);
inline constexpr HRESULT CORPROF_E_SUSPENSION_IN_PROGRESS = static_cast<HRESULT>(0x80131388u);

inline bool succeeded(HRESULT hr) { return hr >= 0; }

// IUnknown: slots 0..2. COM objects are single-inheritance chains of pure virtual methods with no virtual
// destructor, which the Itanium C++ ABI lays out exactly like a COM vtable.
struct IUnknown {
  virtual HRESULT QueryInterface(REFIID riid, void** object) = 0;
  virtual ULONG AddRef() = 0;
  virtual ULONG Release() = 0;
};

struct IClassFactory : IUnknown {
  virtual HRESULT CreateInstance(IUnknown* outer, REFIID riid, void** object) = 0;
  virtual HRESULT LockServer(BOOL lock) = 0;
};

}  // namespace umbra::clr
