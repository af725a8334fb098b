// `muster submit --wait`: follows a submitted batch job to its end. Copies the job's output file to stdout as
// it grows (the file is on a filesystem the submitting machine shares with the job's first node), polls
// `scontrol show job` every second (no accounting database needed), notes state changes (pending, running
// on which nodes) on stderr, and returns the job's exit code (cluster/slurm_job_status.h). Ctrl-C (or SIGTERM/SIGHUP)
// cancels the job with `scancel` and keeps following until Slurm reports it ended, then returns 130; a
// second one stops waiting at once. Never blocks longer than one short Slurm command.
#pragma once

#include <string>

#include "util/result.h"

namespace muster::submit {

Result<int> follow_job(const std::string& slurm_job_id, const std::string& output_path);

}  // namespace muster::submit
