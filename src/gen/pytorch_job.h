// `muster gen k8s`: a Kubeflow PyTorchJob (kubeflow.org/v1, training-operator >= 1.7 for spec.nprocPerNode)
// for the plan's node count: a Master replica spec (1 pod) and a Worker spec (N-1 pods; left out for one
// node). Each pod runs `torchrun` (see torchrun_command.h) with --nnodes and --nproc_per_node from the plan
// and the node rank, master address and port the operator puts in the pod's environment (RANK, MASTER_ADDR,
// MASTER_PORT, expanded by Kubernetes as $(VAR)); the master's port is declared as the operator's
// `pytorchjob-port`; the container must be called `pytorch`. Each pod asks for the plan's workers per node
// as nvidia.com/gpu limits and mounts a memory-backed emptyDir at /dev/shm (the default 64 MiB /dev/shm
// breaks DataLoader workers and NCCL). restartPolicy Never: one failed pod fails the job, as muster launch
// does; Kubernetes picks the machines, so the plan's host names are not used and every pod has the same
// GPU count (an uneven plan is a usage error). Pure.
#pragma once

#include <vector>

#include "cluster/rank_plan.h"
#include "gen/gen_options.h"
#include "util/result.h"

namespace muster::gen {

Result<std::vector<GeneratedFile>> render_pytorch_job(const cluster::RankPlan& plan,
                                                      const GenOptions& options);

}  // namespace muster::gen
