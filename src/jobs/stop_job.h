// `muster stop JOB`: stops a running job as Ctrl-C on its head would: every rank gets SIGINT and, after the job's
// --grace, SIGKILL; a second stop (or `kill`) kills them at once. The request goes over the job's control socket;
// when that cannot be reached, the head gets SIGINT itself (its pid and start time from the record, so never
// another process). Then waits, up to `timeout_s`, until the job has ended and says how.
#pragma once

#include <string>

#include "util/result.h"

namespace muster::jobs {

struct StopOptions {
  std::string which;  // job id or run directory; empty: the newest running job
  bool kill = false;  // SIGKILL every rank now
  bool wait = true;
  double timeout_s = 60;
};

// 0 once the job has ended (or was not running); an error when it could not be asked or did not end in time.
Result<int> run_stop(const StopOptions& options);

}  // namespace muster::jobs
