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

}  // namespace muster::posix
