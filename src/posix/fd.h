// Fd: sole owner of one file descriptor; closes it when destroyed. Move-only, so a descriptor has exactly
// one owner and is closed exactly once. Fd never duplicates, never shares and never closes anything it
// was not given; code that only *uses* a descriptor takes a plain `int` (see fd.get()).
//
// The I/O helpers below retry EINTR and report EAGAIN as `would_block` rather than as an error, so an
// event loop can tell "try again when the poller says so" from a real failure. They never wait for
// readiness themselves: on a non-blocking fd they return at once (the Poller is the only place that waits);
// on a blocking fd they block in the kernel, which is meant for tests, files and short setup steps only.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "util/result.h"

namespace muster::posix {

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { reset(); }

  Fd(Fd&& other) noexcept : fd_(other.release()) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) reset(other.release());
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  // Gives up ownership without closing; the caller now owns the returned descriptor.
  [[nodiscard]] int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  // Closes the current descriptor (if any) and takes ownership of `fd`.
  void reset(int fd = -1);

 private:
  int fd_ = -1;
};

Result<void> set_nonblocking(int fd);
Result<void> set_cloexec(int fd);

// Outcome of one read or write attempt that did not fail.
struct IoResult {
  size_t bytes = 0;          // bytes transferred; 0 when would_block or eof
  bool would_block = false;  // EAGAIN/EWOULDBLOCK: nothing can move now, wait for readiness
  bool eof = false;          // read only: the writer side is closed and everything was read
};

// One read(2): at most buffer.size() bytes. Never returns bytes == 0 without would_block or eof set.
Result<IoResult> read_some(int fd, std::span<char> buffer);
// One write(2): possibly fewer bytes than data.size(). EPIPE is an error (SIGPIPE is ignored under
// SignalBlock, so a closed reader shows up here rather than killing the process).
Result<IoResult> write_some(int fd, std::string_view data);

// For blocking fds: writes everything, or fails (EAGAIN counts as a failure here).
Result<void> write_all(int fd, std::string_view data);
// For blocking fds: reads until EOF (EAGAIN counts as a failure here).
Result<std::string> read_to_end(int fd);

// Waits up to `timeout_ms` until `fd` is readable (or at EOF / in error): true if so, false on timeout. For the
// rare short waits outside an event loop (a refusal an ssh master sends: transport/ssh_master.h).
Result<bool> wait_readable(int fd, int timeout_ms);

// /dev/null opened read-write, close-on-exec: stdio for a child that must not hold its parent's.
Result<Fd> open_dev_null();

}  // namespace muster::posix
