// How many open files (descriptors) a launch needs, on the head and on every node, checked against the open-file
// limit (RLIMIT_NOFILE) before anything starts, so that a job too big for a limit fails at once with the limit
// named and how to raise it, instead of at rank 507 with "cannot create a pipe". Pure.
//
// A connection to an agent is three pipes (the transport's stdin, stdout, stderr). The head holds one for each
// agent it starts itself: every node in a star, at most --fanout through the launch tree (head/relay_tree.h),
// whatever the node count; plus at most logs::RankLogSet::kDefaultMaxOpen rank log files at a time. An agent
// holds two pipes per worker (its stdout and stderr) and, on an inner node of the tree, one connection for each
// agent it starts below it. Both need a few more for themselves (poller, guard, stdio, a sync file): the base
// figures.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "head/relay_tree.h"
#include "util/result.h"

namespace muster::launch {

inline constexpr uint64_t kHeadBaseDescriptors = 64;
inline constexpr uint64_t kAgentBaseDescriptors = 32;
inline constexpr uint64_t kDescriptorsPerConnection = 3;

// `connections`: how many agents the head starts itself.
uint64_t head_descriptors_needed(size_t connections, int ranks);
// `children`: how many agents this node starts below it in the launch tree.
uint64_t agent_descriptors_needed(int workers, size_t children = 0);

// Of a launch tree: how many agents the head starts itself, and how many each node starts (by node index).
size_t head_connections(const head::RelayTree& tree);
std::vector<size_t> relay_children(const head::RelayTree& tree);

// `soft`/`hard`: the limit in effect after muster raised its soft limit (posix/limits.h); UINT64_MAX = unlimited.
Result<void> check_head_descriptors(int nodes, size_t connections, int ranks, uint64_t soft, uint64_t hard);
// `limit`: what the node's agent reported in its Hello (its soft limit after raising it); 0 = not reported.
Result<void> check_node_descriptors(const std::string& node, int workers, size_t children, uint64_t limit);

}  // namespace muster::launch
