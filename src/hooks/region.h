// A private anonymous memory reservation: pages are committed by the kernel on first touch, so a large reservation
// costs address space, not memory. Used for shadow-stack frames and call-tree nodes, which the hooks must obtain
// without calling malloc.
#pragma once

#include <cstddef>
#include <type_traits>

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

// A fixed-capacity buffer of `T`s in a Region: its pages cost nothing until written, where a vector of the same
// size is zeroed (and committed) when made. The elements read as all-zero bytes until then, which must be the
// default value of T.
template <typename T>
class ReservedArray {
  static_assert(std::is_trivially_copyable_v<T> && std::is_aggregate_v<T>);

 public:
  explicit ReservedArray(size_t capacity)
      : region_(capacity * sizeof(T), capacity * sizeof(T)),
        data_(static_cast<T*>(region_.data())),
        capacity_(region_.size() / sizeof(T)) {}
  T* data() const { return data_; }
  size_t capacity() const { return capacity_; }  // 0 if the reservation failed

 private:
  Region region_;
  T* data_;
  size_t capacity_;
};

}  // namespace umbra
