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

}  // namespace muster::posix
