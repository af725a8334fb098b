// Moving the running muster into the background (`muster launch --detach`): fork_detached() forks this process.
// The child goes on with the same code: it leads a new session (no controlling terminal, so it gets no SIGHUP or
// Ctrl-C when the user's terminal goes away), its stdin is /dev/null, its stdout and stderr are `output_fd`, every
// descriptor muster inherited (one not close-on-exec, other than 0-2 and `keep`) is closed — a shell's or a test
// harness's pipe held open would otherwise keep its reader waiting for the whole job; muster's own descriptors are
// all close-on-exec and stay —, and SIGPIPE is ignored (a write to a reader that is gone fails with EPIPE). The
// parent gets the child as a Process (its pid only: no process group is signalled).
//
// Call it only while the process has one thread (muster never starts others) and holds no SignalBlock.
#pragma once

#include <optional>
#include <vector>

#include "posix/process.h"
#include "util/result.h"

namespace muster::posix {

// In the parent: the child. In the child: nullopt.
Result<std::optional<Process>> fork_detached(int output_fd, const std::vector<int>& keep);

}  // namespace muster::posix
