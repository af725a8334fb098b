// `muster stack JOB`: every rank's stack of a running job, grouped by where the ranks are, the odd ones named. The
// work is the job's head (launch/job_control.h: a stack round over its agents), asked over the job's control
// socket; this prints its summary (and, with `full`, every rank's whole stack). A job that is not running is a
// usage error that points at `muster why`.
#pragma once

#include <string>

#include "util/result.h"

namespace muster::jobs {

struct StackOptions {
  std::string which;      // job id or run directory; empty: the newest running job
  bool full = false;      // also print every rank's whole stack
  double timeout_s = 40;  // how long the head may take to collect the stacks
};

// 0 once the stacks were printed; an error when the job is not running or its head did not answer.
Result<int> run_stack(const StackOptions& options);

}  // namespace muster::jobs
