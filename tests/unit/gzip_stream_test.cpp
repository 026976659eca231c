#include "report/gzip_stream.h"

#include <gtest/gtest.h>

#include <string>

#include "pprof_decoder.h"

namespace umbra {
namespace {

TEST(GzipStream, WhatGoesInComesOutOfGunzip) {
  // Several MiB, some of it hard to compress, written in pieces of every size.
  std::string input;
  uint64_t x = 88172645463325252ull;
  for (int i = 0; i < 3'000'000; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    input += i % 4 ? char('a' + i % 7) : char(x);
  }
  GzipStream gzip;
  for (size_t at = 0, piece = 1; at < input.size(); at += piece, piece = piece * 3 + 1)
    gzip.write(std::string_view(input).substr(at, piece));
  std::string gz = gzip.finish();
  ASSERT_GE(gz.size(), 18u);
  EXPECT_EQ(uint8_t(gz[0]), 0x1f);  // gzip's magic number
  EXPECT_EQ(uint8_t(gz[1]), 0x8b);
  EXPECT_LT(gz.size(), input.size());
  EXPECT_EQ(testing::gunzip(gz), input);
}

TEST(GzipStream, NothingWrittenIsAnEmptyFile) {
  GzipStream gzip;
  std::string gz = gzip.finish();
  EXPECT_EQ(testing::gunzip(gz), "");
}

}  // namespace
}  // namespace umbra
