// How many open files (descriptors) a launch needs, on the head and on every node, checked against the open-file
// limit (RLIMIT_NOFILE) before anything starts, so that a job too big for a limit fails at once with the limit
// named and how to raise it, instead of at rank 507 with "cannot create a pipe". Pure.
//
// The head holds three pipes per node (the transport's stdin, stdout, stderr) and at most
// logs::RankLogSet::kDefaultMaxOpen rank log files at a time; an agent holds two pipes per worker (its stdout and
// stderr). Both need a few more for themselves (poller, guard, relay, stdio, a sync file): the base figures.
#pragma once

#include <cstdint>
#include <string>

#include "util/result.h"

namespace muster::launch {

inline constexpr uint64_t kHeadBaseDescriptors = 64;
inline constexpr uint64_t kAgentBaseDescriptors = 32;

uint64_t head_descriptors_needed(int nodes, int ranks);
uint64_t agent_descriptors_needed(int workers);

// `soft`/`hard`: the limit in effect after muster raised its soft limit (posix/limits.h); UINT64_MAX = unlimited.
Result<void> check_head_descriptors(int nodes, int ranks, uint64_t soft, uint64_t hard);
// `limit`: what the node's agent reported in its Hello (its soft limit after raising it); 0 = not reported.
Result<void> check_node_descriptors(const std::string& node, int workers, uint64_t limit);

}  // namespace muster::launch
