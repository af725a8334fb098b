#include "config/config_files.h"
#include "config/trust.h"

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
    return {(root_ / start).string(), (root_ / "xdg/muster/config.toml").string(), ""};
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

TEST_F(ConfigFilesTest, AFileItsGroupCanWriteIsIgnoredWithAWarning) {
  write(root_ / "proj/muster.toml", "hosts = \"x\"\n");
  fs::permissions(root_ / "proj/muster.toml", fs::perms::group_write, fs::perm_options::add);
  auto set = load_config(where("proj/a"), ::geteuid());
  ASSERT_TRUE(set) << set.error().message;
  EXPECT_TRUE(set->empty());
  ASSERT_EQ(set->warnings.size(), 1u);
  EXPECT_NE(set->warnings[0].find("its group can write to it"), std::string::npos) << set->warnings[0];
}

// A FIFO named muster.toml in a parent directory (/tmp, say) is ignored with a warning, never read: the read
// would block every command below it.
TEST_F(ConfigFilesTest, AFifoIsIgnoredWithAWarningNotRead) {
  ASSERT_EQ(::mkfifo((root_ / "proj/muster.toml").c_str(), 0644), 0);
  auto set = load_config(where("proj/a/b"), ::geteuid());
  ASSERT_TRUE(set) << set.error().message;
  EXPECT_TRUE(set->empty());
  ASSERT_EQ(set->warnings.size(), 1u);
  EXPECT_NE(set->warnings[0].find("not a regular file"), std::string::npos) << set->warnings[0];
}

// A project file that is a link is not followed (the user's own config.toml may be one: dotfile managers).
TEST_F(ConfigFilesTest, AProjectFileThatIsALinkIsIgnoredTheUsersFileIsFollowed) {
  write(root_ / "real.toml", "nproc-per-node = 3\n");
  fs::create_symlink(root_ / "real.toml", root_ / "proj/muster.toml");
  fs::create_symlink(root_ / "real.toml", root_ / "xdg/muster/config.toml");
  auto set = load_config(where("proj/a"), ::geteuid());
  ASSERT_TRUE(set) << set.error().message;
  ASSERT_EQ(set->files.size(), 1u);
  EXPECT_EQ(set->files[0].role, "user");
  ASSERT_EQ(set->warnings.size(), 1u);
  EXPECT_NE(set->warnings[0].find("a symbolic link"), std::string::npos) << set->warnings[0];
}

TEST_F(ConfigFilesTest, AProjectFileIsAllowedOnlyWithARecordOfItsContent) {
  write(root_ / "proj/muster.toml", "hosts = \"x\"\n");
  auto where_allowed = where("proj/a");
  where_allowed.allow_dir = (root_ / "state/allowed").string();
  auto set = load_config(where_allowed, ::geteuid());
  ASSERT_TRUE(set) << set.error().message;
  ASSERT_EQ(set->files.size(), 1u);
  EXPECT_FALSE(set->files[0].allowed);
  std::string path = (root_ / "proj/muster.toml").string();
  ASSERT_TRUE(record_allow(where_allowed.allow_dir, path, set->files[0].digest));
  set = load_config(where_allowed, ::geteuid());
  ASSERT_TRUE(set) << set.error().message;
  EXPECT_TRUE(set->files[0].allowed);
  write(root_ / "proj/muster.toml", "hosts = \"elsewhere\"\n");  // changed: asks again
  set = load_config(where_allowed, ::geteuid());
  ASSERT_TRUE(set) << set.error().message;
  EXPECT_FALSE(set->files[0].allowed);
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
