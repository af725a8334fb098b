// Where a job's files go (rank logs, manifest.json, the sbatch script): the --run-dir pattern with every
// `{job_id}` replaced by the job's id, or muster-runs/<job id> when none is given. The pattern lets one
// setting (a muster.toml's `run-dir = "runs/{job_id}"`) give every job its own directory. Pure.
#pragma once

#include <string>

namespace muster {

std::string job_run_dir(const std::string& pattern, const std::string& job_id);

}  // namespace muster
