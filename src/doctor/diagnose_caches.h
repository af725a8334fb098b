// Which of the job's cache directories (cache_dirs.h) several nodes share, found the way the shared-filesystem
// test finds shared paths: every node writes a marker file into the nearest existing directory of each of its
// caches, then every node looks for the others' markers in its own. The statfs type cannot tell (an NFS home
// mounted on one node only, a bind mount); this can. Part of `muster doctor` and `launch --preflight`.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "doctor/node_facts.h"
#include "head/agent_pool.h"
#include "util/finding.h"

namespace muster::doctor {

// Runs the marker rounds on the pool and adds the findings (nothing when no node reported its caches).
void check_shared_caches(head::AgentPool& pool, const std::vector<std::string>& names,
                         const std::vector<NodeFacts>& facts, std::vector<Finding>& findings);

// Pure: `seen[node][cache]` holds the nodes whose marker node `node` found for that cache (its own included
// when it could write it). A warning per group of nodes that share caches, naming each cache and its path, with
// what to set; one ok finding when every cache is node-local.
std::vector<Finding> judge_cache_sharing(const std::vector<std::string>& names, const std::vector<NodeFacts>& facts,
                                         const std::vector<std::vector<std::set<size_t>>>& seen);

}  // namespace muster::doctor
