// The per-rank exit table printed when a job fails, stalls or is stopped (launcher.cc's report).
//
// Up to `max_rows` ranks: one row per rank, in node order, the root cause marked:
//     rank  node                 local  state            detail
//        3  node2                    1  signaled         killed by SIGKILL  <- root cause
// Larger jobs: the root cause's row, then the other ranks folded by how they ended, those that ended by
// themselves first, one line per kind of ending, its ranks and nodes as folded sets (cluster/node_set.h):
//   ranks 0-2,4-63 (63) on node[1-8] (8): killed by SIGTERM (stopped by muster)
// at most `max_rows` such lines, then a count of the rest. Pure.
#pragma once

#include <cstddef>
#include <string>

#include "cluster/rank_plan.h"
#include "launch/gang.h"

namespace muster::launch {

std::string format_exit_table(const Gang& gang, const cluster::RankPlan& plan, size_t max_rows = 32);

}  // namespace muster::launch
