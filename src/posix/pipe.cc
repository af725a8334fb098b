#include "posix/pipe.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace muster::posix {

Result<Pipe> make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    int code = errno;
    Error error = make_error(ErrorKind::io, "cannot create a pipe: {}", std::strerror(code));
    error.sys = code;  // EMFILE: callers name the open-file limit
    return error;
  }
  return Pipe{Fd(fds[0]), Fd(fds[1])};
}

Result<size_t> set_pipe_size(int fd, size_t bytes) {
  int got = ::fcntl(fd, F_SETPIPE_SZ, static_cast<int>(bytes));
  if (got < 0) return make_error(ErrorKind::io, "cannot resize a pipe to {} bytes: {}", bytes, std::strerror(errno));
  return static_cast<size_t>(got);
}

}  // namespace muster::posix
