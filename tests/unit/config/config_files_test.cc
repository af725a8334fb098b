#include "config/config_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace muster::config {
namespace {

namespace fs = std::filesystem;

class ConfigFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("muster-config-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "proj/a/b");
    fs::create_directories(root_ / "xdg/muster");
  }
  void TearDown() override { fs::remove_all(root_); }
  static void write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }
  ConfigLocations where(const std::string& start) const {
    return {(root_ / start).string(), (root_ / "xdg/muster/config.toml").string()};
  }
  fs::path root_;
};

TEST_F(ConfigFilesTest, NearestMusterTomlUpFromTheWorkingDirectoryThenTheUsersFile) {
  write(root_ / "proj/muster.toml", "hosts = \"outer\"\n");
  write(root_ / "proj/a/muster.toml", "hosts = \"inner\"\n");
  write(root_ / "xdg/muster/config.toml", "nproc-per-node = 2\n");
  auto set = load_config(where("proj/a/b"), ::geteuid());
  ASSERT_TRUE(set) << set.error().message;
  ASSERT_EQ(set->files.size(), 2u);
  EXPECT_EQ(set->files[0].path, (root_ / "proj/a/muster.toml").string());
  EXPECT_EQ(set->files[0].role, "project");
  EXPECT_EQ(set->files[0].settings.at(0).values.at(0), "inner");
  EXPECT_EQ(set->files[1].role, "user");
  EXPECT_TRUE(set->warnings.empty());
}

TEST_F(ConfigFilesTest, NoFilesIsAnEmptySet) {
  auto set = load_config(where("proj/a/b"), ::geteuid());
  ASSERT_TRUE(set) << set.error().message;
  EXPECT_TRUE(set->empty());
}

TEST_F(ConfigFilesTest, AFileAnyoneCanWriteIsIgnoredWithAWarning) {
  write(root_ / "proj/muster.toml", "hosts = \"x\"\n");
  fs::permissions(root_ / "proj/muster.toml", fs::perms::others_write, fs::perm_options::add);
  auto set = load_config(where("proj/a"), ::geteuid());
  ASSERT_TRUE(set) << set.error().message;
  EXPECT_TRUE(set->empty());
  ASSERT_EQ(set->warnings.size(), 1u);
  EXPECT_NE(set->warnings[0].find("anyone can write to it"), std::string::npos) << set->warnings[0];
}

TEST_F(ConfigFilesTest, AFileOfAnotherUserIsIgnoredWithAWarning) {
  write(root_ / "proj/muster.toml", "hosts = \"x\"\n");
  // As root, the file belongs to root (trusted): give it to another uid. As another user, pretend to be one.
  uint32_t me = ::geteuid();
  if (me == 0) {
    ASSERT_EQ(::chown((root_ / "proj/muster.toml").c_str(), 65534, 65534), 0);
  } else {
    me = me + 1;  // the file's owner (this process) is then "another user"
  }
  auto set = load_config(where("proj/a"), me);
  ASSERT_TRUE(set) << set.error().message;
  EXPECT_TRUE(set->empty());
  ASSERT_EQ(set->warnings.size(), 1u);
  EXPECT_NE(set->warnings[0].find("not to you"), std::string::npos) << set->warnings[0];
}

TEST_F(ConfigFilesTest, MalformedFileIsAnErrorNamingIt) {
  write(root_ / "xdg/muster/config.toml", "[launch\n");
  auto set = load_config(where("proj"), ::geteuid());
  ASSERT_FALSE(set);
  EXPECT_NE(set.error().message.find((root_ / "xdg/muster/config.toml").string() + ":1:"), std::string::npos)
      << set.error().message;
}

TEST(ConfigLocations, XdgConfigHomeWhenAbsoluteElseHome) {
  EXPECT_EQ(user_config_path("/x", "/home/u"), "/x/muster/config.toml");
  EXPECT_EQ(user_config_path("relative", "/home/u"), "/home/u/.config/muster/config.toml");
  EXPECT_EQ(user_config_path(nullptr, "/home/u"), "/home/u/.config/muster/config.toml");
  EXPECT_EQ(user_config_path(nullptr, ""), "");
}

}  // namespace
}  // namespace muster::config
