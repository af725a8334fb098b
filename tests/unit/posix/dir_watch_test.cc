#include "posix/dir_watch.h"

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "posix/poller.h"

namespace muster::posix {
namespace {

TEST(DirWatch, AWriteInTheDirectoryWakesThePoller) {
  char pattern[] = "/tmp/muster-dirwatch-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  std::string dir = pattern;
  auto watch = DirWatch::open(dir);
  ASSERT_TRUE(watch);
  auto poller = Poller::create();
  ASSERT_TRUE(poller);
  ASSERT_TRUE(poller->add(watch->fd(), poll_readable, 7));
  auto idle = poller->wait(0);
  ASSERT_TRUE(idle);
  EXPECT_TRUE(idle->empty());
  int fd = ::open((dir + "/rank-0.log").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "x\n", 2), 2);
  auto woken = poller->wait(5000);
  ASSERT_TRUE(woken);
  ASSERT_EQ(woken->size(), 1u);
  EXPECT_EQ((*woken)[0].token, 7u);
  watch->drain();
  auto drained = poller->wait(0);
  ASSERT_TRUE(drained);
  EXPECT_TRUE(drained->empty());
  ASSERT_EQ(::write(fd, "y\n", 2), 2);  // an append to a file that exists wakes it too
  auto again = poller->wait(5000);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->size(), 1u);
  ::close(fd);
  EXPECT_FALSE(DirWatch::open(dir + "/missing"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace muster::posix
