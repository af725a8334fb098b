// `muster gen accelerate`: one accelerate config YAML per node, as `accelerate config` writes them for a
// multi-node job (accelerate 1.x, src/accelerate/commands/config/cluster.py and config_args.py's
// ClusterConfig at 1.2-1.3): the same keys in the same (sorted, yaml.safe_dump) order, the same defaults, and
// machine_rank 0..N-1 -- the one value that differs from node to node in the how-tos. accelerate refuses
// unknown keys (config_args.py: "had unknown keys"), so only ClusterConfig fields are written;
// enable_cpu_affinity needs accelerate >= 0.28.
//
//   distributed_type MULTI_GPU, gpu_ids all (or the node's devices when they are not the first ones), or,
//   with a ZeRO stage, DEEPSPEED with a deepspeed_config block (deepspeed_multinode_launcher: standard:
//   every node runs its own `accelerate launch`, which is what `muster launch --per-node` does).
//   num_processes is the total over all machines; accelerate starts num_processes / num_machines on each,
//   so every node must run the same number of workers (an uneven plan is a usage error).
// Pure.
#pragma once

#include <vector>

#include "cluster/rank_plan.h"
#include "gen/gen_options.h"
#include "util/result.h"

namespace muster::gen {

Result<std::vector<GeneratedFile>> render_accelerate_configs(const cluster::RankPlan& plan,
                                                             const GenOptions& options);

}  // namespace muster::gen
