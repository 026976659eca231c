#include "diagnostics_ipc.h"

#include <gtest/gtest.h>

#include "clr/guids.h"

namespace umbra::launcher {
namespace {

std::vector<uint8_t> bytes(std::initializer_list<int> values) {
  return std::vector<uint8_t>(values.begin(), values.end());
}

std::vector<uint8_t> slice(const std::vector<uint8_t>& v, size_t at, size_t count) {
  return std::vector<uint8_t>(v.begin() + long(at), v.begin() + long(at + count));
}

TEST(DiagnosticsIpc, AttachProfilerMessageLayout) {
  std::string error;
  auto message = attach_profiler_message(clr::CLSID_UmbraProfiler, "/l/\xc3\xa9.so", "k=v\n", 10000, error);
  ASSERT_TRUE(message) << error;
  // Header: magic, total size, command set 0x03 (Profiler), id 0x01 (AttachProfiler), reserved.
  const size_t size = 20 + 4 + 16 + 4 + 2 * 8 + 4 + 4;
  ASSERT_EQ(message->size(), size);
  EXPECT_EQ(std::string(message->begin(), message->begin() + 14), std::string("DOTNET_IPC_V1\0", 14));
  EXPECT_EQ(slice(*message, 14, 6), bytes({int(size), 0, 0x03, 0x01, 0, 0}));
  EXPECT_EQ(slice(*message, 20, 4), bytes({0x10, 0x27, 0, 0}));  // 10000 ms
  // {9D4F3A52-6C1B-4E8A-B7D2-3F5A8C0E1B64} as Guid.ToByteArray lays it out.
  EXPECT_EQ(slice(*message, 24, 16), bytes({0x52, 0x3A, 0x4F, 0x9D, 0x1B, 0x6C, 0x8A, 0x4E, 0xB7, 0xD2, 0x3F, 0x5A,
                                            0x8C, 0x0E, 0x1B, 0x64}));
  // 7 UTF-16 units and the NUL: "/l/é.so".
  EXPECT_EQ(slice(*message, 40, 4), bytes({8, 0, 0, 0}));
  EXPECT_EQ(slice(*message, 44, 16),
            bytes({'/', 0, 'l', 0, '/', 0, 0xE9, 0, '.', 0, 's', 0, 'o', 0, 0, 0}));
  EXPECT_EQ(slice(*message, 60, 8), bytes({4, 0, 0, 0, 'k', '=', 'v', '\n'}));
}

TEST(DiagnosticsIpc, MessagesThatCannotBeSent) {
  std::string error;
  EXPECT_FALSE(attach_profiler_message(clr::CLSID_UmbraProfiler, "/l/\xff.so", "", 0, error));
  EXPECT_EQ(error, "the library's path '/l/\xff.so' is not UTF-8");
  EXPECT_FALSE(attach_profiler_message(clr::CLSID_UmbraProfiler, "/l.so", std::string(70000, 'x'), 0, error));
  EXPECT_NE(error.find("more than the 65535 it may have"), std::string::npos) << error;
}

std::vector<uint8_t> reply(uint8_t set, uint8_t id, uint32_t hresult) {
  const char magic[] = "DOTNET_IPC_V1";  // 13 characters and the NUL
  std::vector<uint8_t> r(magic, magic + sizeof magic);
  for (int b : {24, 0, int(set), int(id), 0, 0}) r.push_back(uint8_t(b));
  for (int shift = 0; shift < 32; shift += 8) r.push_back(uint8_t(hresult >> shift));
  return r;
}

TEST(DiagnosticsIpc, Replies) {
  auto ok = parse_ipc_reply(reply(0xFF, 0x00, 0));
  ASSERT_TRUE(ok);
  EXPECT_TRUE(ok->ok);
  EXPECT_EQ(ok->hresult, 0u);
  auto refused = parse_ipc_reply(reply(0xFF, 0xFF, 0x8013136A));
  ASSERT_TRUE(refused);
  EXPECT_FALSE(refused->ok);
  EXPECT_EQ(refused->hresult, 0x8013136Au);
  EXPECT_EQ(hresult_name(refused->hresult), "CORPROF_E_PROFILER_ALREADY_ACTIVE");
  EXPECT_FALSE(parse_ipc_reply(reply(0x03, 0x00, 0)));  // not the server's command set
  EXPECT_FALSE(parse_ipc_reply(reply(0xFF, 0x01, 0)));  // neither OK nor error
  auto cut = reply(0xFF, 0x00, 0);
  cut.pop_back();
  EXPECT_FALSE(parse_ipc_reply(cut));
  auto bad_magic = reply(0xFF, 0x00, 0);
  bad_magic[0] = 'X';
  EXPECT_FALSE(parse_ipc_reply(bad_magic));
}

}  // namespace
}  // namespace umbra::launcher
