// `muster gen sbatch`: a Slurm batch script for the plan's node count whose body is one `muster launch`.
// Slurm allocates the nodes and runs the script on the first one; muster launch, given the allocation's
// nodes (-w "$SLURM_JOB_NODELIST") and the worker count, starts every worker over ssh, streams the logs into
// the job's output file and stops all ranks when one fails. One task per node (--ntasks-per-node=1): the
// workers are muster's, not srun's. The training command is shell-quoted word by word, so `$`, quotes and
// spaces in it reach the workers unchanged. Every node must run the same number of workers (Slurm's
// --gpus-per-node is per node, the same everywhere). Pure.
#pragma once

#include <vector>

#include "cluster/rank_plan.h"
#include "gen/gen_options.h"
#include "util/result.h"

namespace muster::gen {

Result<std::vector<GeneratedFile>> render_sbatch_script(const cluster::RankPlan& plan,
                                                        const GenOptions& options);

}  // namespace muster::gen
