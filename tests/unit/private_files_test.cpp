// Files created where another user may have planted a link or a file first.
#include "util/private_files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "scoped_env.h"

namespace umbra {
namespace {

namespace fs = std::filesystem;

struct Scratch {
  fs::path dir;
  Scratch() {
    char name[] = "/tmp/umbra-private-files-test-XXXXXX";
    dir = mkdtemp(name);
  }
  ~Scratch() { fs::remove_all(dir); }
  std::string operator/(const std::string& name) const { return (dir / name).string(); }
};

std::string contents(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(PrivateFiles, ANewFileIsNeverALinkOrAnExistingFile) {
  Scratch s;
  std::ofstream(s / "victim") << "precious";
  ASSERT_EQ(symlink((s / "victim").c_str(), (s / "link").c_str()), 0);
  EXPECT_LT(create_private_file(s / "link"), 0);
  EXPECT_EQ(errno, EEXIST);
  EXPECT_LT(create_private_file(s / "victim"), 0);
  EXPECT_EQ(contents(s / "victim"), "precious");
  int fd = create_private_file(s / "new");
  ASSERT_GE(fd, 0);
  close(fd);
  struct stat st {};
  ASSERT_EQ(stat((s / "new").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(PrivateFiles, ReplacingALinkReplacesTheLinkNotItsTarget) {
  Scratch s;
  std::ofstream(s / "victim") << "precious";
  ASSERT_EQ(symlink((s / "victim").c_str(), (s / "report.json").c_str()), 0);
  ASSERT_EQ(symlink((s / "victim").c_str(), (s / "report.json.tmp").c_str()), 0);
  std::string error;
  ASSERT_TRUE(replace_file(s / "report.json", "{}", 0640, error)) << error;
  EXPECT_EQ(contents(s / "victim"), "precious");
  EXPECT_FALSE(fs::is_symlink(s / "report.json"));
  EXPECT_EQ(contents(s / "report.json"), "{}");
  struct stat st {};
  ASSERT_EQ(stat((s / "report.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(s.dir)) ++entries;
  EXPECT_EQ(entries, 3u) << "no temporary file is left behind";
}

// An earlier report is replaced whole: a reader that had it open still reads the old one, and nothing else is
// left in the directory.
TEST(PrivateFiles, ReplacingAReportLeavesOnlyTheNewOne) {
  Scratch s;
  std::ofstream(s / "report.json") << "old";
  std::ifstream reader(s / "report.json");
  std::string error;
  ASSERT_TRUE(replace_file(s / "report.json", "new", 0644, error)) << error;
  EXPECT_EQ(contents(s / "report.json"), "new");
  std::string seen;
  reader >> seen;
  EXPECT_EQ(seen, "old");
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(s.dir)) ++entries;
  EXPECT_EQ(entries, 1u);
}

// A directory where the report should go is neither replaced nor moved.
TEST(PrivateFiles, ADirectoryInTheWayStaysWhereItIs) {
  Scratch s;
  fs::create_directory(s / "report.json");
  std::ofstream(s / "report.json/inside") << "kept";
  std::string error;
  EXPECT_FALSE(replace_file(s / "report.json", "{}", 0644, error));
  EXPECT_EQ(contents(s / "report.json/inside"), "kept");
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(s.dir)) ++entries;
  EXPECT_EQ(entries, 1u) << "no temporary file is left behind";
}

TEST(PrivateFiles, AFailedReplaceLeavesNothingBehind) {
  Scratch s;
  std::string error;
  EXPECT_FALSE(replace_file(s / "missing-directory/report.json", "{}", 0644, error));
  EXPECT_EQ(error, "No such file or directory");
}

TEST(PrivateFiles, ALogIsAppendedToOnlyWhenItIsThisUsersOwnPlainFile) {
  Scratch s;
  std::string error;
  int fd = open_log_file(s / "run.log", error);
  ASSERT_GE(fd, 0) << error;
  ASSERT_EQ(write(fd, "one\n", 4), 4);
  close(fd);
  fd = open_log_file(s / "run.log", error);
  ASSERT_GE(fd, 0) << error;
  ASSERT_EQ(write(fd, "two\n", 4), 4);
  close(fd);
  EXPECT_EQ(contents(s / "run.log"), "one\ntwo\n");

  std::ofstream(s / "victim") << "precious";
  ASSERT_EQ(symlink((s / "victim").c_str(), (s / "linked.log").c_str()), 0);
  EXPECT_LT(open_log_file(s / "linked.log", error), 0);
  ASSERT_EQ(link((s / "victim").c_str(), (s / "hard.log").c_str()), 0);
  EXPECT_LT(open_log_file(s / "hard.log", error), 0);
  EXPECT_EQ(error, "a file not created by this user is already there");
  ASSERT_EQ(mkfifo((s / "fifo.log").c_str(), 0600), 0);
  EXPECT_LT(open_log_file(s / "fifo.log", error), 0) << "a FIFO must neither hang nor be used";
  EXPECT_EQ(contents(s / "victim"), "precious");
}

TEST(PrivateFiles, TheFallbackDirectoryIsNewAndOnlyTheUsersOwn) {
  Scratch s;
  std::string error;
  std::optional<std::string> first, second;
  {
    testing::ScopedEnv fallback_in_scratch("TMPDIR", s.dir.string());
    first = make_private_directory(error);
    second = make_private_directory(error);
  }
  ASSERT_TRUE(first && second) << error;
  EXPECT_NE(*first, *second);
  EXPECT_EQ(fs::path(*first).parent_path(), s.dir);
  struct stat st {};
  ASSERT_EQ(stat(first->c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

TEST(PrivateFiles, TheDefaultModeFollowsTheUmask) {
  mode_t previous = umask(027);
  mode_t mode = default_file_mode();
  umask(previous);
  EXPECT_EQ(mode, 0640u);
}

}  // namespace
}  // namespace umbra
