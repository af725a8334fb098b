// Everything one worker (or, in per-node mode, one node's process) gets on top of its node's own environment,
// computed in one place for the launcher and for --print-env: the propagated user environment, muster's
// torchrun/DeepSpeed-compatible variables (rank_env.h), the node's device pin, PYTHONUNBUFFERED=1 (logs arrive as
// they are written) and TORCH_NCCL_ASYNC_ERROR_HANDLING=1 (an NCCL error or timeout ends the process, as torchrun
// sets it) unless the user set them. The agent adds the node-side ones (agent/worker_setup.h).
#pragma once

#include <string>
#include <vector>

#include "launch/launch_options.h"
#include "launch/rank_env.h"

namespace muster::launch {

// The job's interpreter, for the doctor's package versions and the failure report's probes: the command itself
// when it is a python, else python3.
std::string job_python(const std::vector<std::string>& command);

// `job.omp_num_threads` is filled here (from the propagated environment). `plan` is the attempt's (the nodes it
// runs on, renumbered: launch/attempt.h); `host` the node's index among the job's hosts (options.node_env's).
EnvList worker_env(const LaunchOptions& options, const cluster::RankPlan& plan, size_t host,
                   const cluster::NodePlan& node, const cluster::RankAssignment& rank, JobInfo job);
// The same for the job's full plan (every host; --print-env).
EnvList worker_env(const LaunchOptions& options, const cluster::NodePlan& node, const cluster::RankAssignment& rank,
                   JobInfo job);

// --print-env: every node's processes and what each gets, secrets redacted, with the notes that apply.
std::string format_worker_envs(const LaunchOptions& options);

}  // namespace muster::launch
