// make_private_dir: muster's own directories under the user's cache directory are made 0700 and refused, with the
// path, the problem and the fix, when group or others can write them or another user owns them.
#include "posix/private_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace muster::posix {
namespace {

namespace fs = std::filesystem;

struct Scratch {
  std::string path;
  Scratch() {
    char pattern[] = "/tmp/muster-private-dir.XXXXXX";
    path = ::mkdtemp(pattern);
  }
  ~Scratch() { fs::remove_all(path); }
};

uint32_t mode_of(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? st.st_mode & 07777 : 0xFFFF;
}

TEST(PrivateDir, CreatesEveryMissingComponent0700) {
  Scratch scratch;
  std::string root = scratch.path + "/home/.cache";
  auto made = make_private_dir(root, "muster/ssh");
  ASSERT_TRUE(made) << made.error().message;
  EXPECT_EQ(*made, root + "/muster/ssh");
  for (const std::string& dir : {scratch.path + "/home", root, root + "/muster", root + "/muster/ssh"}) {
    EXPECT_EQ(mode_of(dir), 0700u) << dir;
  }
  EXPECT_TRUE(make_private_dir(root, "muster/ssh"));  // again: nothing to do
}

TEST(PrivateDir, RefusesWhatOthersCouldWrite) {
  Scratch scratch;
  ASSERT_TRUE(make_private_dir(scratch.path, "muster/ssh"));
  ::chmod((scratch.path + "/muster").c_str(), 0775);
  auto refused = make_private_dir(scratch.path, "muster/ssh");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message,
            "refusing " + scratch.path + "/muster: it is writable by its group or others (mode 775), and muster keeps "
            "ssh control sockets and caches there; fix it with: chmod go-w '" + scratch.path + "/muster'");
  ::chmod((scratch.path + "/muster").c_str(), 0755);  // readable by others is fine
  EXPECT_TRUE(make_private_dir(scratch.path, "muster/ssh"));
  ::chmod((scratch.path + "/muster/ssh").c_str(), 01777);  // a /tmp-like directory
  EXPECT_FALSE(make_private_dir(scratch.path, "muster/ssh"));
}

TEST(PrivateDir, RefusesAnotherUsersDirectoryAndANonDirectory) {
  Scratch scratch;
  // Another user's directory: root gives one away; any other user finds one of root's (/) behind a link, which
  // is followed as a link the user made would be.
  std::string owner;
  if (::geteuid() == 0) {
    ASSERT_TRUE(make_private_dir(scratch.path, "muster"));
    ASSERT_EQ(::chown((scratch.path + "/muster").c_str(), 65534, 65534), 0);
    owner = "65534";
  } else {
    fs::create_directory_symlink("/", scratch.path + "/muster");
    owner = "0";
  }
  auto refused_other = make_private_dir(scratch.path, "muster/ssh");
  ASSERT_FALSE(refused_other);
  EXPECT_NE(refused_other.error().message.find("refusing " + scratch.path + "/muster: it belongs to uid " + owner +
                                               ", not to you"),
            std::string::npos)
      << refused_other.error().message;
  fs::remove_all(scratch.path + "/muster");
  { std::ofstream(scratch.path + "/muster") << "a file"; }
  auto refused = make_private_dir(scratch.path, "muster/ssh");
  ASSERT_FALSE(refused);
}

}  // namespace
}  // namespace muster::posix
