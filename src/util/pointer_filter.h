// Which addresses a map may hold something for, as two bits per address held (a Bloom filter). Asked about every
// node of trees of millions where most answers are "nothing": the filter gives those from a few KB instead of a
// lookup in the map (cache misses). Thirty-two bits per address held keep false answers near 0.4%; never under
// 8 KB, never over 64 MB. No false "no".
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace umbra {

class PointerFilter {
 public:
  explicit PointerFilter(size_t addresses) {
    while ((size_t(1) << bits_log2_) < addresses * 32 && bits_log2_ < kMaxBitsLog2) ++bits_log2_;
    bits_.resize((size_t(1) << bits_log2_) / 64);
  }
  void add(const void* address) {
    uint64_t h = hash(address);
    set(first(h));
    set(second(h));
  }
  bool may_hold(const void* address) const {
    uint64_t h = hash(address);
    return is_set(first(h)) && is_set(second(h));
  }
  size_t bytes() const { return bits_.size() * sizeof(uint64_t); }

 private:
  static uint64_t hash(const void* address) { return uintptr_t(address) * 0x9E3779B97F4A7C15ull; }
  // 64 MB of bits: past 2^29, the second hash would come from the product's low bits, which are zero for aligned
  // addresses. A larger map is only answered more often than it should.
  static constexpr unsigned kMaxBitsLog2 = 29;
  // The hash's top bits_log2_ bits, then the next bits_log2_.
  size_t first(uint64_t h) const { return h >> (64 - bits_log2_); }
  size_t second(uint64_t h) const { return (h >> (64 - 2 * bits_log2_)) & ((size_t(1) << bits_log2_) - 1); }
  void set(size_t bit) { bits_[bit / 64] |= uint64_t(1) << (bit % 64); }
  bool is_set(size_t bit) const { return bits_[bit / 64] >> (bit % 64) & 1; }
  unsigned bits_log2_ = 16;
  std::vector<uint64_t> bits_;
};

}  // namespace umbra
