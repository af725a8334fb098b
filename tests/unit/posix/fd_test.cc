#include "posix/fd.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include <gtest/gtest.h>

#include "posix/pipe.h"
#include "posix/signals.h"

namespace muster::posix {
namespace {

bool fd_is_open(int fd) { return ::fcntl(fd, F_GETFD) != -1 || errno != EBADF; }

std::pair<int, int> raw_pipe() {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  return {fds[0], fds[1]};
}

TEST(Fd, ClosesOnDestruction) {
  auto [r, w] = raw_pipe();
  {
    Fd read_end(r);
    Fd write_end(w);
    EXPECT_TRUE(fd_is_open(r));
  }
  EXPECT_FALSE(fd_is_open(r));
  EXPECT_FALSE(fd_is_open(w));
}

TEST(Fd, DefaultIsInvalid) {
  Fd fd;
  EXPECT_FALSE(fd.valid());
  EXPECT_EQ(fd.get(), -1);
}

TEST(Fd, MoveTransfersOwnershipAndClosesOnce) {
  auto [r, w] = raw_pipe();
  Fd a(r);
  Fd b(std::move(a));
  EXPECT_FALSE(a.valid());  // NOLINT(bugprone-use-after-move): checking the moved-from state
  EXPECT_EQ(b.get(), r);
  Fd c(w);
  c = std::move(b);  // closes w, takes r
  EXPECT_FALSE(fd_is_open(w));
  EXPECT_EQ(c.get(), r);
  EXPECT_TRUE(fd_is_open(r));
  c.reset();
  EXPECT_FALSE(fd_is_open(r));
}

TEST(Fd, ReleaseGivesUpOwnership) {
  auto [r, w] = raw_pipe();
  Fd write_end(w);
  int released = -1;
  {
    Fd read_end(r);
    released = read_end.release();
    EXPECT_FALSE(read_end.valid());
  }
  EXPECT_EQ(released, r);
  EXPECT_TRUE(fd_is_open(r));
  ::close(r);
}

TEST(Fd, ResetClosesThePreviousDescriptor) {
  auto [r, w] = raw_pipe();
  Fd fd(r);
  fd.reset(w);
  EXPECT_FALSE(fd_is_open(r));
  EXPECT_EQ(fd.get(), w);
}

TEST(Fd, SetNonblockingAndCloexec) {
  auto [r, w] = raw_pipe();
  Fd read_end(r), write_end(w);
  EXPECT_EQ(::fcntl(r, F_GETFL) & O_NONBLOCK, 0);
  EXPECT_EQ(::fcntl(r, F_GETFD) & FD_CLOEXEC, 0);
  ASSERT_TRUE(set_nonblocking(r));
  ASSERT_TRUE(set_cloexec(r));
  EXPECT_NE(::fcntl(r, F_GETFL) & O_NONBLOCK, 0);
  EXPECT_NE(::fcntl(r, F_GETFD) & FD_CLOEXEC, 0);
  ASSERT_TRUE(set_nonblocking(r));  // idempotent
}

TEST(Fd, FlagsOnAClosedFdAreAnError) {
  auto [r, w] = raw_pipe();
  ::close(r);
  ::close(w);
  auto result = set_nonblocking(r);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, ErrorKind::io);
  EXPECT_NE(result.error().message.find("Bad file descriptor"), std::string::npos);
}

TEST(Fd, ReadSomeDistinguishesDataWouldBlockAndEof) {
  auto pipe = make_pipe();
  ASSERT_TRUE(pipe);
  ASSERT_TRUE(set_nonblocking(pipe->read.get()));
  char buffer[16];

  auto empty = read_some(pipe->read.get(), buffer);
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->would_block);
  EXPECT_FALSE(empty->eof);
  EXPECT_EQ(empty->bytes, 0u);

  ASSERT_TRUE(write_all(pipe->write.get(), "abc"));
  auto data = read_some(pipe->read.get(), buffer);
  ASSERT_TRUE(data);
  EXPECT_EQ(data->bytes, 3u);
  EXPECT_FALSE(data->would_block);
  EXPECT_EQ(std::string(buffer, 3), "abc");

  pipe->write.reset();
  auto eof = read_some(pipe->read.get(), buffer);
  ASSERT_TRUE(eof);
  EXPECT_TRUE(eof->eof);
  EXPECT_FALSE(eof->would_block);
}

TEST(Fd, WriteSomeReportsWouldBlockWhenThePipeIsFull) {
  auto pipe = make_pipe();
  ASSERT_TRUE(pipe);
  ASSERT_TRUE(set_nonblocking(pipe->write.get()));
  std::string chunk(65536, 'x');
  size_t total = 0;
  bool blocked = false;
  for (int i = 0; i < 1000 && !blocked; ++i) {  // a pipe holds at most a few MiB
    auto wrote = write_some(pipe->write.get(), chunk);
    ASSERT_TRUE(wrote);
    blocked = wrote->would_block;
    total += wrote->bytes;
  }
  EXPECT_TRUE(blocked);
  EXPECT_GT(total, 0u);
  auto all = write_all(pipe->write.get(), "y");
  ASSERT_FALSE(all);
  EXPECT_NE(all.error().message.find("non-blocking"), std::string::npos);
}

TEST(Fd, WriteToAClosedReaderIsEpipeUnderSignalBlock) {
  SignalBlock block;  // ignores SIGPIPE; without it this test would die of SIGPIPE
  auto pipe = make_pipe();
  ASSERT_TRUE(pipe);
  pipe->read.reset();
  auto wrote = write_some(pipe->write.get(), "x");
  ASSERT_FALSE(wrote);
  EXPECT_EQ(wrote.error().kind, ErrorKind::io);
  EXPECT_NE(wrote.error().message.find("Broken pipe"), std::string::npos);
}

TEST(Fd, WriteAllThenReadToEnd) {
  auto pipe = make_pipe();
  ASSERT_TRUE(pipe);
  std::string text(10000, 'q');
  text += "end";
  ASSERT_TRUE(write_all(pipe->write.get(), text));
  pipe->write.reset();
  auto read = read_to_end(pipe->read.get());
  ASSERT_TRUE(read);
  EXPECT_EQ(*read, text);
}

TEST(Fd, ReadFromABadFdIsAnError) {
  char buffer[4];
  auto got = read_some(-1, buffer);
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().kind, ErrorKind::io);
}

}  // namespace
}  // namespace muster::posix
