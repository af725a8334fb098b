#include "posix/file.h"

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

namespace muster::posix {
namespace {

TEST(AbsolutePath, OneSpellingPerDirectory) {
  EXPECT_EQ(absolute_path("/data/run"), "/data/run");
  EXPECT_EQ(absolute_path("/data/run/"), "/data/run");
  EXPECT_EQ(absolute_path("/data//run/./x/../"), "/data/run");
  EXPECT_EQ(absolute_path("/"), "/");
  EXPECT_EQ(absolute_path("/.."), "/");
}

TEST(AbsolutePath, RelativePathsStartAtTheWorkingDirectory) {
  std::string cwd = std::filesystem::current_path().string();
  EXPECT_EQ(absolute_path("sub/dir/"), cwd + "/sub/dir");
  EXPECT_EQ(absolute_path("."), cwd);
  EXPECT_EQ(absolute_path("a/../b"), cwd + "/b");
}

TEST(AbsolutePath, LinksAreNotResolved) {
  EXPECT_EQ(absolute_path("/proc/self/cwd/x/.."), "/proc/self/cwd");
}

}  // namespace
}  // namespace muster::posix
