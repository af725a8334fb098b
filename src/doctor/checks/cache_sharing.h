// Which of the job's cache directories (node/cache_dirs.h) several nodes share, found the way the shared-filesystem
// test finds shared paths: every node writes a marker file into the nearest existing directory of each of its
// caches (the facts round), then every node looks for the others' markers in its own (the cross round). The
// statfs type cannot tell (an NFS home mounted on one node only, a bind mount); this can. Part of `muster doctor`
// and `launch --preflight`.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "doctor/node/node_facts.h"
#include "util/finding.h"

namespace muster::doctor {

// The markers each node found (the `cache INDEX WRITER` lines of the cross round, node/cross_checks.h; the markers were
// written in the facts round): `seen[node][cache]` as judge_cache_sharing wants it.
std::vector<std::vector<std::set<size_t>>> cache_markers_seen(const std::vector<NodeFacts>& facts,
                                                              const std::vector<std::string>& cross_outputs);

// Pure: `seen[node][cache]` holds the nodes whose marker node `node` found for that cache (its own included
// when it could write it). A warning per group of nodes that share caches, naming each cache and its path, with
// what to set; one ok finding when every cache is node-local.
std::vector<Finding> judge_cache_sharing(const std::vector<std::string>& names, const std::vector<NodeFacts>& facts,
                                         const std::vector<std::vector<std::set<size_t>>>& seen);

}  // namespace muster::doctor
