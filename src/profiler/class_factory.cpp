#include "profiler/class_factory.h"

#include <new>

#include "clr/guids.h"
#include "profiler/profiler.h"

namespace umbra {

clr::HRESULT ClassFactory::QueryInterface(const clr::IID& riid, void** object) {
  if (object == nullptr) return clr::E_POINTER;
  if (riid == clr::IID_IUnknown || riid == clr::IID_IClassFactory) {
    *object = this;
    return clr::S_OK;
  }
  *object = nullptr;
  return clr::E_NOINTERFACE;
}

clr::HRESULT ClassFactory::CreateInstance(clr::IUnknown* outer, const clr::IID& riid, void** object) {
  if (object == nullptr) return clr::E_POINTER;
  *object = nullptr;
  if (outer != nullptr) return clr::CLASS_E_NOAGGREGATION;
  auto* profiler = new (std::nothrow) Profiler();
  if (profiler == nullptr) return clr::E_OUTOFMEMORY;
  clr::HRESULT hr = profiler->QueryInterface(riid, object);
  profiler->Release();  // the reference QueryInterface took is the caller's
  return hr;
}

}  // namespace umbra
