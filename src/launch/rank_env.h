// The environment muster gives each process it starts, so that `init_process_group("env://")`, DeepSpeed
// and HF accelerate work unchanged. Pure: computed from the rank plan and the job; nothing here reads the
// environment of the machine it runs on (the caller passes what it needs, see env_policy.h).
//
// Two launch modes, two functions:
//   - per-rank mode (muster starts every worker itself): rank_env() for each worker, what torchrun's elastic
//     agent sets (torch/distributed/elastic/agent/server/local_elastic_agent.py) plus DeepSpeed's
//     CROSS_RANK/CROSS_SIZE/LOCAL_SIZE (deepspeed/launcher/launch.py) and muster's own MUSTER_*;
//   - per-node mode (one process per node that runs its own torchrun/deepspeed/accelerate):
//     per_node_rank_env() for that process: only what tells a launcher where it stands, never the
//     variables that say "you already are a worker" (see the comment on per_node_rank_env).
// per_node_env() holds what depends on the node's hardware selection and applies in both modes.
//
// Precedence when the caller assembles a worker's environment (overlay_env): the user's propagated
// variables (env_policy.h) < per_node_env() < rank_env()/per_node_rank_env(). The user cannot override a
// name muster sets (muster_env_names(); env_policy refuses them) except OMP_NUM_THREADS, whose user value
// reaches rank_env() through JobInfo::omp_num_threads.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cluster/rank_plan.h"

namespace muster::launch {

// An environment as name/value pairs. Order is the producer's: rank_env() keeps a fixed documented order,
// everything that merges (overlay_env, env_policy) returns names sorted.
using EnvList = std::vector<std::pair<std::string, std::string>>;

struct JobInfo {
  std::string job_id;       // unique per run; becomes TORCHELASTIC_RUN_ID and MUSTER_JOB_ID
  std::string master_addr;  // an address of the rank-0 node that every node can reach
  int master_port = 0;      // free port on that node, picked per run (and per restart)
  int restart_count = 0;    // how many times the gang has been restarted (0 on the first run)
  int max_restarts = 0;     // --max-restarts
  // The user's OMP_NUM_THREADS, as the workers would get it from the head (see omp_num_threads_setting):
  //   0  = the user did not set it: torchrun's rule, "1" when the node runs more than one worker, else unset;
  //   >0 = the user's value, set for every worker;
  //   <0 = the user set a value muster does not model (e.g. OpenMP's nested list "4,2"): muster sets
  //        nothing, so the user's propagated value stands.
  int omp_num_threads = 0;
  // The resume contract (docs/recipes.md): MUSTER_ATTEMPT (= restart_count), MUSTER_EXCLUDED_NODES (folded, empty
  // when none) and MUSTER_RESTART_REASON (empty on the first attempt).
  std::string excluded_nodes;
  std::string restart_reason;
};

// JobInfo::omp_num_threads for a user environment (the propagated list, or the head's variables).
int omp_num_threads_setting(const EnvList& user_env);

// One worker's environment in per-rank mode, exactly these names in this order:
//   MASTER_ADDR MASTER_PORT WORLD_SIZE RANK LOCAL_RANK LOCAL_WORLD_SIZE GROUP_RANK ROLE_RANK ROLE_WORLD_SIZE
//   ROLE_NAME NODE_RANK NNODES GROUP_WORLD_SIZE CROSS_RANK CROSS_SIZE LOCAL_SIZE TORCHELASTIC_RUN_ID
//   TORCHELASTIC_RESTART_COUNT TORCHELASTIC_MAX_RESTARTS TORCHELASTIC_USE_AGENT_STORE MUSTER_JOB_ID
//   MUSTER_NODE [OMP_NUM_THREADS, by the rule on JobInfo::omp_num_threads]
// GROUP_RANK = NODE_RANK = CROSS_RANK = the node rank; GROUP_WORLD_SIZE = NNODES = CROSS_SIZE = the node
// count; ROLE_* mirror RANK/WORLD_SIZE with torchrun's single role "default"; LOCAL_SIZE = LOCAL_WORLD_SIZE.
// TORCHELASTIC_USE_AGENT_STORE is "False": there is no agent-hosted TCPStore, rank 0 hosts the store.
// CUDA_VISIBLE_DEVICES is not set here (torchrun does not either): see per_node_env.
EnvList rank_env(const cluster::RankPlan& plan, const cluster::NodePlan& node,
                 const cluster::RankAssignment& rank, const JobInfo& job);

// Whether the node's devices were picked by DeepSpeed-style --include/--exclude (then a worker's
// LOCAL_RANK no longer equals its device index and the devices must be renumbered for it).
enum class DeviceSelection {
  whole_node,  // no filter: every worker uses device LOCAL_RANK; CUDA_VISIBLE_DEVICES left to the node
  filtered,    // --include/--exclude was given: pin the node to the devices its ranks use
};

// What every process on `node` gets, in both modes. With DeviceSelection::filtered, CUDA_VISIBLE_DEVICES
// lists the ranks' devices in local-rank order, as deepspeed/launcher/launch.py does, so that device
// LOCAL_RANK inside a worker is the one the plan chose; unless the filter kept the whole node (the devices
// are exactly 0..slots-1 of a host whose slot count is known), where renumbering would change nothing.
// Empty otherwise: the node's own CUDA_VISIBLE_DEVICES, if any, stands.
EnvList per_node_env(const cluster::NodePlan& node, DeviceSelection selection);

// The environment of the one process muster starts per node in per-node mode:
//   MASTER_ADDR MASTER_PORT NODE_RANK NNODES MUSTER_JOB_ID MUSTER_NODE
//   PET_MASTER_ADDR PET_MASTER_PORT PET_NODE_RANK PET_NNODES PET_NPROC_PER_NODE
// The PET_* variables are torchrun's own flag defaults (torch/distributed/argparse_util.py: `--node-rank`
// defaults to $PET_NODE_RANK, ...), so a bare `torchrun train.py` joins the job; explicit flags still win.
//
// WORLD_SIZE, RANK, LOCAL_RANK, LOCAL_WORLD_SIZE and GROUP_RANK are deliberately NOT set. That process is a
// launcher, not a worker, and those names mean "you already are worker RANK of WORLD_SIZE" to the tools it
// runs: PyTorch Lightning sees LOCAL_RANK and stops spawning its own processes
// (creates_processes_externally), and RANK/GROUP_RANK/LOCAL_WORLD_SIZE make it detect a torchelastic worker;
// accelerate's PartialState and DeepSpeed's init_distributed read RANK/WORLD_SIZE/LOCAL_RANK as a finished
// distributed setup (DeepSpeed then skips its MPI discovery); a script that spawns its own workers and calls
// init_process_group("env://") would inherit WORLD_SIZE = the node count and wait forever for too few peers.
// The per-node launcher computes the worker values itself from NODE_RANK/NNODES and its own --nproc-per-node.
EnvList per_node_rank_env(const cluster::RankPlan& plan, const cluster::NodePlan& node, const JobInfo& job);

// Every name rank_env() or per_node_rank_env() may set, except OMP_NUM_THREADS (the user's value wins) and
// CUDA_VISIBLE_DEVICES (per_node_env; a user may pin devices explicitly). env_policy refuses these in
// --env/--env-file and never propagates them. Sorted.
const std::vector<std::string_view>& muster_env_names();

// `base` with `top` laid over it: a name in both takes top's value. Sorted by name; in `top` a repeated name
// keeps its last value.
EnvList overlay_env(EnvList base, const EnvList& top);

}  // namespace muster::launch
