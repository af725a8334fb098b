// `muster launch --detach`: the job's head moved into the background (posix/detach.h) right before the job starts,
// after everything that can go wrong on this machine (the hostfile, --sync, --preflight) ran in the user's
// terminal. The head is the same Launcher as an attached one (gang teardown, no orphans, manifest, diagnosis, the
// control socket for attach, logs, stop); its own output goes to <run_dir>/head.log (muster's messages only).
//
// The parent stays until the job runs, so an error before that (an unreachable node, a limit on a node) still
// reaches the user's terminal and exit code. The head tells it over a pipe, in one JSON line:
//   {"running": true, "job_id", "run_dir"}  every rank started: the parent prints the job id and returns 0
//   {"error": message, "kind": name}        the job could not start: the parent returns that error
//   {"ended": code}                         the job ended before every rank started: the parent shows head.log
//                                           and returns the job's exit code
// End of file without a line: the head died; the parent says how and where head.log is. Ctrl-C (or SIGTERM,
// SIGHUP) while the parent waits stops the starting job as it would an attached one and waits for its end.
#pragma once

#include "launch/launch_options.h"
#include "util/result.h"

namespace muster::launch {

// In the parent: 0 once the job runs (its id printed on stdout, how to reach it on stderr), or the start's error
// or exit code. In the background head (the same call returns there too): the job's exit code, when it ends.
Result<int> run_detached(LaunchOptions options);

}  // namespace muster::launch
