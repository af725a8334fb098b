// The agent's guard: a tiny process (a fork of the agent) that outlives the agent just long enough to kill
// what the agent started. PR_SET_PDEATHSIG reaches only the agent's direct children (the workers); the
// processes *they* start (a shell's `cmd &`, DataLoader workers of a dying rank) would survive a SIGKILLed
// agent. The agent writes every worker's process-group id to the guard's stdin, one decimal per line; when
// that pipe reaches EOF — the agent exited or was killed, however — the guard SIGKILLs every group that is still
// in the agent's session (a group id whose processes all ended may belong to someone else by then:
// posix/process_groups.h) and exits.
//
// The guard runs in its own process group with stdout/stderr on /dev/null: it must never hold the agent's
// connection to the head open, and the agent's own signals must not reach it.
#pragma once

#include "posix/fd.h"
#include "posix/process.h"
#include "util/result.h"

namespace muster::agent {

// The guard's main: reads group ids from stdin until EOF, then kills the groups. Returns the exit code.
int run_guard();

// Starts the guard (a fork of this process running run_guard, posix::fork_call); returns it and the write end of
// its pipe.
struct Guard {
  posix::Process process;
  posix::Fd pipe;  // write a group id followed by '\n'
};
Result<Guard> start_guard();

}  // namespace muster::agent
