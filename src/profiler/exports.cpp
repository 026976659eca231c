// The entry points CoreCLR looks up in libumbra.so.
#include "clr/guids.h"
#include "profiler/class_factory.h"

namespace {
umbra::ClassFactory g_factory;
}

extern "C" __attribute__((visibility("default"))) umbra::clr::HRESULT DllGetClassObject(const umbra::clr::CLSID& rclsid,
                                                                                          const umbra::clr::IID& riid,
                                                                                          void** object) {
  using namespace umbra::clr;
  if (object == nullptr) return E_POINTER;
  *object = nullptr;
  if (!(rclsid == CLSID_UmbraProfiler)) return CLASS_E_CLASSNOTAVAILABLE;
  return g_factory.QueryInterface(riid, object);
}

extern "C" __attribute__((visibility("default"))) umbra::clr::HRESULT DllCanUnloadNow() {
  return umbra::clr::S_FALSE;  // hooks may run until the process ends
}
