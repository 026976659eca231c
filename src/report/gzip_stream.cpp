#include "report/gzip_stream.h"

#include <algorithm>
#include <new>

namespace umbra {
namespace {

// zlib's window bits, plus 16: write a gzip header and trailer rather than a zlib one.
constexpr int kGzipWindowBits = 15 + 16;
constexpr int kMemoryLevel = 8;  // zlib's default
constexpr size_t kChunk = 1 << 16;

}  // namespace

GzipStream::GzipStream(int level) {
  if (deflateInit2(&stream_, level, Z_DEFLATED, kGzipWindowBits, kMemoryLevel, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::bad_alloc();
}

GzipStream::~GzipStream() { deflateEnd(&stream_); }

void GzipStream::write(std::string_view bytes) {
  // avail_in is 32 bits: a larger piece goes in several.
  while (!bytes.empty()) {
    size_t piece = std::min<size_t>(bytes.size(), 1u << 30);
    stream_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    stream_.avail_in = uInt(piece);
    deflate_all(Z_NO_FLUSH);
    bytes.remove_prefix(piece);
  }
}

std::string GzipStream::finish() {
  stream_.next_in = nullptr;
  stream_.avail_in = 0;
  deflate_all(Z_FINISH);
  return std::move(out_);
}

// Deflates into the output until zlib has taken all the input (and, with Z_FINISH, written the trailer). With a
// valid stream, deflate returns Z_OK while it goes on, Z_STREAM_END once finished, and Z_BUF_ERROR only when no
// progress is possible: done either way.
void GzipStream::deflate_all(int flush) {
  for (;;) {
    size_t used = out_.size();
    out_.resize(used + kChunk);
    stream_.next_out = reinterpret_cast<Bytef*>(out_.data() + used);
    stream_.avail_out = uInt(kChunk);
    int status = deflate(&stream_, flush);
    out_.resize(used + kChunk - stream_.avail_out);
    if (status != Z_OK) return;
    if (flush != Z_FINISH && stream_.avail_in == 0 && stream_.avail_out != 0) return;
  }
}

}  // namespace umbra
