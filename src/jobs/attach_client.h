// `muster attach JOB`: the live view of a running job, as if it had been launched in this terminal. The job's head
// sends its lines, progress and notices over the control socket (launch/attach_hub.h describes the events); this
// renders them with a logs::TerminalView of its own (this terminal's TTY, colour, the ranks asked for) and writes
// to stdout without blocking. One loop (a Poller over the socket and stdout, signals through the mask).
//
// Ctrl-C (SIGINT, SIGTERM, SIGHUP) detaches and leaves the job running; with `stop_on_interrupt` the first asks the
// job to stop as Ctrl-C on its head would (`muster stop`), the second to kill its ranks at once, and the view goes
// on until the job ends. The result is the job's exit code when it ended while attached, 0 after detaching.
#pragma once

#include <string>

#include "util/result.h"

namespace muster::jobs {

struct AttachOptions {
  std::string which;         // job id or run directory; empty: the newest running job
  bool stop_on_interrupt = false;
  std::string ranks = "all";  // the ranks shown (logs::RankFilter syntax)
};

Result<int> run_attach(const AttachOptions& options);

}  // namespace muster::jobs
