// Which worker (rank) runs where: the torchrun/DeepSpeed numbering of the selected slots. Global ranks are
// contiguous per node, in node order (node 0 holds ranks 0..k-1, node 1 the next, ...); nodes may have
// different slot counts. Pure: the plan is computed before any node is contacted, and `muster plan`
// prints it without launching anything.
#pragma once

#include <string>
#include <vector>

#include "cluster/host.h"
#include "cluster/slot_filter.h"

namespace muster::cluster {

// One worker's identity: the values of RANK, LOCAL_RANK, GROUP_RANK (node_rank), LOCAL_WORLD_SIZE, and the
// device index it is given (CUDA_VISIBLE_DEVICES / its slot).
struct RankAssignment {
  int global_rank = 0;
  int local_rank = 0;
  int node_rank = 0;
  int local_world_size = 0;
  int device = 0;

  bool operator==(const RankAssignment&) const = default;
};

struct NodePlan {
  Host host{};
  int node_rank = 0;
  int first_global_rank = 0;
  std::vector<RankAssignment> ranks{};  // local rank order
};

struct RankPlan {
  std::vector<NodePlan> nodes{};
  int world_size = 0;
  int max_local_world_size = 0;
};

RankPlan make_rank_plan(const std::vector<NodeSlots>& nodes);

// The plan's hosts as a hostfile of the selection names them (`muster plan --hostfile-out`, `muster gen
// hostfile`): `slots` = the ranks each node runs, and a max_slots below that dropped (parse_hostfile refuses
// max_slots < slots, which a --nproc-per-node above a hostfile's max_slots would give).
std::vector<Host> hosts_of_plan(const RankPlan& plan);

// A table for people: one row per node with its host, node rank, global ranks (`0-1`) and devices
// (`0-3,5`), then a line with the totals.
std::string format_rank_plan(const RankPlan& plan);

}  // namespace muster::cluster
