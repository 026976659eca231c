#include "hooks/region.h"

#include <sys/mman.h>

#include <utility>

namespace umbra {

Region::Region(size_t bytes, size_t min_bytes) {
  for (size_t want = bytes; want > 0; want /= 2) {
    void* p = mmap(nullptr, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p != MAP_FAILED) {
      data_ = p;
      size_ = want;
      return;
    }
    if (want / 2 < min_bytes) return;
  }
}

Region::~Region() {
  if (data_) munmap(data_, size_);
}

Region::Region(Region&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

Region& Region::operator=(Region&& other) noexcept {
  if (this != &other) {
    if (data_) munmap(data_, size_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

void Region::discard_pages() {
  if (data_) madvise(data_, size_, MADV_DONTNEED);
}

}  // namespace umbra
