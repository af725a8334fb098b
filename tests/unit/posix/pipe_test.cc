#include "posix/pipe.h"

#include <fcntl.h>

#include <gtest/gtest.h>

namespace muster::posix {
namespace {

TEST(Pipe, BothEndsAreCloexecAndConnected) {
  auto pipe = make_pipe();
  ASSERT_TRUE(pipe);
  EXPECT_NE(::fcntl(pipe->read.get(), F_GETFD) & FD_CLOEXEC, 0);
  EXPECT_NE(::fcntl(pipe->write.get(), F_GETFD) & FD_CLOEXEC, 0);
  ASSERT_TRUE(write_all(pipe->write.get(), "ping"));
  pipe->write.reset();
  auto text = read_to_end(pipe->read.get());
  ASSERT_TRUE(text);
  EXPECT_EQ(*text, "ping");
}

TEST(Pipe, EndsAreClosedWithThePipe) {
  int read_fd = -1;
  {
    auto pipe = make_pipe();
    ASSERT_TRUE(pipe);
    read_fd = pipe->read.get();
  }
  EXPECT_EQ(::fcntl(read_fd, F_GETFD), -1);
}

}  // namespace
}  // namespace muster::posix
