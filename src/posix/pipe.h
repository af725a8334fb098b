// Pipe: the two ends of one pipe(2), each an owning Fd, both O_CLOEXEC so neither leaks into a child
// unless it is handed over explicitly (SpawnOptions::stdout_fd and friends). The parent must close its
// copy of an end it gave to a child (reset the Fd after spawn), or the other side never sees EOF.
#pragma once

#include "posix/fd.h"
#include "util/result.h"

namespace muster::posix {

struct Pipe {
  Fd read;
  Fd write;
};

Result<Pipe> make_pipe();

// Asks the kernel for a pipe buffer of `bytes` (F_SETPIPE_SZ, rounded up to a power of two pages); returns the
// size the pipe has afterwards. Beyond /proc/sys/fs/pipe-max-size, or the user's pipe-user-pages-soft, it fails.
Result<size_t> set_pipe_size(int fd, size_t bytes);

}  // namespace muster::posix
