// The IClassFactory that DllGetClassObject hands to the runtime; it creates the one Profiler.
#pragma once

#include "clr/pal.h"

namespace umbra {

class ClassFactory final : public clr::IClassFactory {
 public:
  clr::HRESULT QueryInterface(const clr::IID& riid, void** object) override;
  clr::ULONG AddRef() override { return 1; }
  clr::ULONG Release() override { return 1; }  // a static object
  clr::HRESULT CreateInstance(clr::IUnknown* outer, const clr::IID& riid, void** object) override;
  clr::HRESULT LockServer(clr::BOOL) override { return clr::S_OK; }
};

}  // namespace umbra
