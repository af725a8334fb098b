// `muster submit`: one Slurm batch job for N nodes whose script is `muster launch --transport slurm ... -- cmd`
// (gen/sbatch_script.h renders it). The script is kept in the run directory (<run-dir>/<job-name>.sbatch), where
// the job also writes slurm-<jobid>.out and muster launch its rank logs and manifest.json. Options muster does
// not know go to sbatch as #SBATCH lines. With `wait`, job_follow.h follows the job and the job's exit code
// becomes muster's.
#pragma once

#include <string>
#include <vector>

#include "gen/gen_options.h"
#include "util/result.h"

namespace muster::submit {

struct SubmitOptions {
  int nodes = 1;
  int workers = 1;             // per node; also Slurm's --ntasks-per-node
  std::string run_dir;         // empty: muster-runs/<job id>
  std::string job_id;          // empty: generated
  bool wait = false;           // follow the job, return its exit code
  bool dry_run = false;        // write and print the script, submit nothing
  gen::GenOptions gen;         // job name, Slurm time/partition/GPUs; extra_lines and command are filled here
  std::vector<std::string> sbatch_options;  // what the user gave that muster does not know (for #SBATCH lines)
  std::vector<std::string> command;
  std::string command_line;    // as typed, recorded in the script
};

// The exit code to return: 0 once submitted (or written, with dry_run), the job's with `wait`.
// `command` must not be empty.
Result<int> run_submit(SubmitOptions options);

}  // namespace muster::submit
