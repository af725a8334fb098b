// The hosts of a Slurm allocation, from the variables Slurm sets in a job: SLURM_JOB_NODELIST (a hostlist,
// see hostlist.h) and SLURM_TASKS_PER_NODE (`2(x3),1`: two tasks on each of three nodes, then one).
// Pure: the caller reads the environment. Counts are matched exactly, node for node; a count list that does
// not cover every node is an error, never stretched.
#pragma once

#include <string_view>
#include <vector>

#include "cluster/host.h"
#include "util/result.h"

namespace muster::cluster {

// `2(x3),1` -> {2, 2, 2, 1}. Each count must be at least 1; at most kMaxHostlistNames entries in all.
Result<std::vector<int>> parse_tasks_per_node(std::string_view tasks_per_node);

// One Host per node, in nodelist order, with `slots` = that node's task count.
Result<std::vector<Host>> hosts_from_slurm(std::string_view nodelist, std::string_view tasks_per_node);

}  // namespace muster::cluster
