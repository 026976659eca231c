// The runtime's thread enumerator for fake runtimes: lists the ThreadIDs it was given, once.
#pragma once

#include <utility>
#include <vector>

#include "clr/corprof.h"

namespace umbra::testing {

struct FakeThreadEnum final : clr::ICorProfilerThreadEnum {
  std::vector<clr::ThreadID> ids;
  size_t next = 0;

  // Starts a new enumeration of `threads`.
  clr::ICorProfilerThreadEnum* listing(std::vector<clr::ThreadID> threads) {
    ids = std::move(threads);
    next = 0;
    return this;
  }

  // Starts a new enumeration of the threads a fake runtime keeps as the keys of `by_thread`.
  template <typename Map>
  clr::ICorProfilerThreadEnum* listing_keys_of(const Map& by_thread) {
    std::vector<clr::ThreadID> threads;
    for (const auto& entry : by_thread) threads.push_back(entry.first);
    return listing(std::move(threads));
  }

  clr::HRESULT QueryInterface(clr::REFIID, void**) override { return clr::E_NOTIMPL; }
  clr::ULONG AddRef() override { return 1; }
  clr::ULONG Release() override { return 1; }
  clr::HRESULT Skip(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT Reset(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT Clone(...) override { return clr::E_NOTIMPL; }
  clr::HRESULT GetCount(clr::ULONG* count) override {
    *count = clr::ULONG(ids.size());
    return clr::S_OK;
  }
  clr::HRESULT Next(clr::ULONG wanted, clr::ThreadID out[], clr::ULONG* fetched) override {
    clr::ULONG n = 0;
    while (n < wanted && next < ids.size()) out[n++] = ids[next++];
    *fetched = n;
    return clr::S_OK;
  }
};

}  // namespace umbra::testing
