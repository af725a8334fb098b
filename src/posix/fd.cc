#include "posix/fd.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace muster::posix {

void Fd::reset(int fd) {
  // On Linux close() releases the descriptor even when it reports EINTR or EIO, so it is never retried.
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

namespace {

Result<void> add_flag(int fd, int get_cmd, int set_cmd, int flag, const char* what) {
  int flags = ::fcntl(fd, get_cmd);
  if (flags < 0) return make_error(ErrorKind::io, "cannot read flags of fd {}: {}", fd, std::strerror(errno));
  if ((flags & flag) == flag) return {};
  if (::fcntl(fd, set_cmd, flags | flag) < 0) {
    return make_error(ErrorKind::io, "cannot set {} on fd {}: {}", what, fd, std::strerror(errno));
  }
  return {};
}

bool is_would_block(int err) { return err == EAGAIN || err == EWOULDBLOCK; }

}  // namespace

Result<void> set_nonblocking(int fd) { return add_flag(fd, F_GETFL, F_SETFL, O_NONBLOCK, "O_NONBLOCK"); }

Result<void> set_cloexec(int fd) { return add_flag(fd, F_GETFD, F_SETFD, FD_CLOEXEC, "FD_CLOEXEC"); }

Result<IoResult> read_some(int fd, std::span<char> buffer) {
  for (;;) {
    ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n > 0) return IoResult{.bytes = static_cast<size_t>(n)};
    if (n == 0) return IoResult{.eof = true};
    if (errno == EINTR) continue;
    if (is_would_block(errno)) return IoResult{.would_block = true};
    return make_error(ErrorKind::io, "read failed: {}", std::strerror(errno));
  }
}

Result<IoResult> write_some(int fd, std::string_view data) {
  for (;;) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n >= 0) return IoResult{.bytes = static_cast<size_t>(n)};
    if (errno == EINTR) continue;
    if (is_would_block(errno)) return IoResult{.would_block = true};
    return make_error(ErrorKind::io, "write failed: {}", std::strerror(errno));
  }
}

Result<void> write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    auto written = write_some(fd, data);
    if (!written) return written.error();
    if (written->would_block) return make_error(ErrorKind::io, "write failed: fd {} is non-blocking", fd);
    data.remove_prefix(written->bytes);
  }
  return {};
}

Result<std::string> read_to_end(int fd) {
  std::string out;
  char buffer[16384];
  for (;;) {
    auto got = read_some(fd, buffer);
    if (!got) return got.error();
    if (got->eof) return out;
    if (got->would_block) return make_error(ErrorKind::io, "read failed: fd {} is non-blocking", fd);
    out.append(buffer, got->bytes);
  }
}

Result<Fd> open_dev_null() {
  int fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (fd < 0) return make_error(ErrorKind::io, "cannot open /dev/null: {}", std::strerror(errno));
  return Fd(fd);
}

Result<bool> wait_readable(int fd, int timeout_ms) {
  pollfd entry{fd, POLLIN, 0};
  for (;;) {
    int ready = ::poll(&entry, 1, timeout_ms);
    if (ready >= 0) return ready > 0;
    if (errno != EINTR) return make_error(ErrorKind::io, "poll: {}", std::strerror(errno));
  }
}

}  // namespace muster::posix
