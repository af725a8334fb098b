// Does `ssh nodeJ` work from node I, for every ordered pair? Each node tries the other nodes, 8 at a time, with
// `ssh -o BatchMode=yes -o ConnectTimeout=5 <name> true` (the names as the user gave them, resolved and
// aliased by each node's own ssh config). Used by `setup ssh` to verify its work and by `doctor`.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "head/agent_pool.h"
#include "util/result.h"

namespace muster::doctor {

struct SshPair {
  size_t from = 0;
  size_t to = 0;
};

// The ordered pairs (node indexes into `names`) for which ssh failed; empty when the mesh is complete.
// A node that could not run the check at all counts as failing towards every other node.
Result<std::vector<SshPair>> failed_ssh_pairs(head::AgentPool& pool, const std::vector<std::string>& names);

}  // namespace muster::doctor
