// `muster gen sbatch` and `muster submit`: a Slurm batch script for the plan's node count whose body is one
// `muster launch --transport slurm`. Slurm allocates the nodes and runs the script on the first one; muster
// launch starts one agent per node with srun (no ssh needed), the workers under them, streams every rank's
// output into the job's output file and stops all ranks when one fails. One Slurm task per worker
// (--ntasks-per-node = workers per node), so Slurm allocates a CPU for each and SLURM_TASKS_PER_NODE says how
// many workers a node runs. The training command is shell-quoted word by word, so `$`, quotes and spaces in
// it reach the workers unchanged. Every node must run the same number of workers (Slurm's --gpus-per-node is
// per node, the same everywhere). Pure.
#pragma once

#include <vector>

#include "cluster/rank_plan.h"
#include "gen/gen_options.h"
#include "util/result.h"

namespace muster::gen {

Result<std::vector<GeneratedFile>> render_sbatch_script(const cluster::RankPlan& plan,
                                                        const GenOptions& options);

// The user's own sbatch options (what `muster submit` does not know itself), grouped into #SBATCH lines: an
// option and the words after it that do not start with '-' ({"--mail-type", "END", "-A", "proj"} ->
// {"--mail-type END", "-A proj"}); sbatch splits each line at whitespace as a shell would. A usage error for
// a word sbatch could not read back from a #SBATCH line (whitespace, quotes, backslash, control characters),
// a leading word that is no option, or an option muster sets itself (named in `reserved`, with or without
// "=value").
Result<std::vector<std::string>> sbatch_option_lines(const std::vector<std::string>& words,
                                                     const std::vector<std::string>& reserved);

}  // namespace muster::gen
