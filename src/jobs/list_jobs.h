// `muster ps`: this user's jobs on this machine, read from the job registry (head/job_registry.h), each job's state
// decided once, printed as the table or the JSON of jobs/job_table.h (which holds the pure part).
#pragma once

#include "util/result.h"

namespace muster::jobs {

struct PsOptions {
  bool all = false;   // every job in the registry, not only running and recent ones
  bool json = false;  // the rows as JSON instead of the table
};

// Prints the jobs; 0.
Result<int> run_ps(const PsOptions& options);

}  // namespace muster::jobs
