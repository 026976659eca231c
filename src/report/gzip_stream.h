// A gzip file (RFC 1952) compressed with zlib as its bytes come, so that a large report is never held uncompressed
// whole: pprof files are gzipped profile.proto messages.
#pragma once

#include <zlib.h>

#include <string>
#include <string_view>

namespace umbra {

class GzipStream {
 public:
  // Throws std::bad_alloc when zlib cannot have its memory.
  explicit GzipStream(int level = Z_DEFAULT_COMPRESSION);
  ~GzipStream();
  GzipStream(const GzipStream&) = delete;
  GzipStream& operator=(const GzipStream&) = delete;

  void write(std::string_view bytes);
  // The whole file; nothing may be written after.
  std::string finish();

 private:
  void deflate_all(int flush);
  z_stream stream_{};
  std::string out_;
};

}  // namespace umbra
