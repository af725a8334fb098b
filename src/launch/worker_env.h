// Everything one worker (or, in per-node mode, one node's process) gets on top of its node's own environment,
// computed in one place for the launcher and for --print-env: the propagated user environment, muster's
// torchrun/DeepSpeed-compatible variables (rank_env.h), the node's device pin, and PYTHONUNBUFFERED=1 unless the
// user set it (so logs arrive as they are written).
#pragma once

#include "launch/launch_options.h"
#include "launch/rank_env.h"

namespace muster::launch {

// `job.omp_num_threads` is filled here (from the propagated environment).
EnvList worker_env(const LaunchOptions& options, const cluster::NodePlan& node, const cluster::RankAssignment& rank,
                   JobInfo job);

// --print-env: every node's processes and what each gets, secrets redacted, with the notes that apply.
std::string format_worker_envs(const LaunchOptions& options);

}  // namespace muster::launch
