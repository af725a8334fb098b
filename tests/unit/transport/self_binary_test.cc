#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "transport/transport.h"

namespace muster::transport {
namespace {

// self_binary() keeps its hashes in the user's cache with the executable's identity (self_binary.cc). These tests
// use a cache directory of their own.
class SelfBinaryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir_template[] = "/tmp/muster-self-binary-XXXXXX";
    ASSERT_NE(mkdtemp(dir_template), nullptr);
    dir_ = dir_template;
    const char* old = std::getenv("XDG_CACHE_HOME");
    if (old) old_ = old;
    setenv("XDG_CACHE_HOME", dir_.c_str(), 1);
  }
  void TearDown() override {
    if (old_) setenv("XDG_CACHE_HOME", old_->c_str(), 1);
    else unsetenv("XDG_CACHE_HOME");
    std::filesystem::remove_all(dir_);
  }
  // The record of this test's executable: the one file self-binary-<XXH3 of its path> (self_binary.cc).
  std::string cache() const {
    std::vector<std::string> found;
    for (const auto& entry : std::filesystem::directory_iterator(dir_ + "/muster")) {
      if (entry.path().filename().string().starts_with("self-binary-")) found.push_back(entry.path().string());
    }
    return found.size() == 1 ? found[0] : dir_ + "/muster/(not one self-binary-* record)";
  }
  std::string read_cache() const {
    std::ifstream in(cache());
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }

  std::string dir_;
  std::optional<std::string> old_;
};

TEST_F(SelfBinaryTest, HashesTheExecutableAndRemembersItsIdentity) {
  auto first = self_binary();
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(first->build_id.size(), 16u);
  EXPECT_EQ(first->sha256.size(), 64u);
  EXPECT_EQ(first->size, std::filesystem::file_size(first->path));
  std::string line = read_cache();
  EXPECT_NE(line.find(first->build_id + " " + first->sha256), std::string::npos) << line;
  EXPECT_EQ(std::filesystem::status(cache()).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  auto again = self_binary();
  ASSERT_TRUE(again);
  EXPECT_EQ(again->build_id, first->build_id);
  EXPECT_EQ(again->sha256, first->sha256);
}

// The cache is what is used while the identity matches (shown with a planted entry), and ignored when it does not:
// any change to the file changes its ctime, and a stale or damaged entry is recomputed.
TEST_F(SelfBinaryTest, UsesTheCacheOnlyForTheSameIdentity) {
  auto real = self_binary();
  ASSERT_TRUE(real);
  std::string line = read_cache();
  std::string identity = line.substr(0, line.size() - (16 + 1 + 64 + 1));
  std::string planted_id(16, 'a'), planted_sum(64, 'b');
  {
    std::ofstream out(cache(), std::ios::trunc);
    out << identity << " " << planted_id << " " << planted_sum << "\n";
  }
  auto cached = self_binary();
  ASSERT_TRUE(cached);
  EXPECT_EQ(cached->build_id, planted_id);
  EXPECT_EQ(cached->sha256, planted_sum);
  for (const std::string& stale : {std::string("1 2 3 4 5 ") + planted_id + " " + planted_sum + "\n",
                                   identity + " short damaged\n", std::string()}) {
    {
      std::ofstream out(cache(), std::ios::trunc);
      out << stale;
    }
    auto computed = self_binary();
    ASSERT_TRUE(computed);
    EXPECT_EQ(computed->build_id, real->build_id) << stale;
    EXPECT_EQ(computed->sha256, real->sha256) << stale;
  }
}

// Each executable path has its record: another muster's (an installed one next to a build tree's) is neither
// read nor overwritten, so running both in turn hashes neither again.
TEST_F(SelfBinaryTest, KeepsOneRecordPerExecutablePath) {
  auto real = self_binary();
  ASSERT_TRUE(real);
  std::string own = cache();
  std::string other = dir_ + "/muster/self-binary-0123456789abcdef";
  std::string other_line = "1 2 3 4 5 " + std::string(16, 'c') + " " + std::string(64, 'd') + "\n";
  {
    std::ofstream out(other);
    out << other_line;
  }
  std::filesystem::remove(own);
  auto again = self_binary();
  ASSERT_TRUE(again);
  EXPECT_EQ(again->build_id, real->build_id);
  EXPECT_TRUE(std::filesystem::exists(own)) << "its own record was not written again";
  std::ifstream in(other);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()), other_line);
}

}  // namespace
}  // namespace muster::transport
