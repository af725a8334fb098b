// `muster doctor --fabric`: launches sweep.py on every node (one rank per node) through the launch machinery
// (launch/launcher.h: the same agents, rendezvous variables and teardown as a job), reads rank 0's result from
// its log in the run directory (muster-runs/<job id>, kept like any job's), judges it (verdict.h) and prints the
// report like the rest of doctor.
#pragma once

#include <string>

#include "head/connect.h"
#include "util/result.h"

namespace muster::fabric {

struct FabricOptions {
  head::ConnectOptions connect;
  std::string python = "python3";  // the job's interpreter, with torch
  double seconds = 0.3;            // each measurement repeats for about this long (at most 50 times)
  bool json = false;
};

// The exit code of the findings (0 all good, 1 warnings, 2 errors), or an error when the sweep could not run.
Result<int> run_fabric(const FabricOptions& options);

}  // namespace muster::fabric
