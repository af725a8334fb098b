// `muster gen compose`: one docker compose file per node, each running that node's share of the job in one
// container: `torchrun` with the node's rank, the master's address and port and the node's worker count
// (nodes may differ), in front of the user's command (see torchrun_command.h). The container gets the
// node's GPUs through a device reservation (deploy.resources.reservations.devices, driver nvidia,
// capabilities [gpu]; a count, or device_ids when the node uses other devices than the first ones), the
// host's network (NCCL needs the real interfaces) and IPC namespace (the node's /dev/shm; with
// --container-shm-size a private one of that size instead), and unlimited locked memory and a 64 MiB stack
// (ulimits; --container-ulimit changes them), as NVIDIA's PyTorch containers ask — exactly the choices `muster
// launch --container-image` makes with the same options (container/settings.h job_settings).
// Run on each node: docker compose -f <node>.compose.yaml up. Pure.
#pragma once

#include <vector>

#include "cluster/rank_plan.h"
#include "gen/gen_options.h"
#include "util/result.h"

namespace muster::gen {

Result<std::vector<GeneratedFile>> render_compose_files(const cluster::RankPlan& plan,
                                                        const GenOptions& options);

}  // namespace muster::gen
