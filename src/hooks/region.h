// A private anonymous memory reservation: pages are committed by the kernel on first touch, so a large reservation
// costs address space, not memory. Used for shadow-stack frames and call-tree nodes, which the hooks must obtain
// without calling malloc.
#pragma once

#include <cstddef>

namespace umbra {

class Region {
 public:
  Region() = default;
  // Reserves `bytes`, halving on failure while that stays at least `min_bytes`. size() is 0 if nothing could be mapped.
  Region(size_t bytes, size_t min_bytes);
  ~Region();
  Region(Region&& other) noexcept;
  Region& operator=(Region&& other) noexcept;
  Region(const Region&) = delete;
  Region& operator=(const Region&) = delete;

  void* data() const { return data_; }
  size_t size() const { return size_; }
  // Gives the pages back to the kernel; the reservation stays valid and reads as zero.
  void discard_pages();

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace umbra
