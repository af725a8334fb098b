#include "launch/fd_budget.h"

#include <algorithm>

#include "logs/rank_log.h"

namespace muster::launch {

uint64_t head_descriptors_needed(int nodes, int ranks) {
  auto logs = static_cast<uint64_t>(std::min(ranks, logs::RankLogSet::kDefaultMaxOpen));
  return 3 * static_cast<uint64_t>(nodes) + logs + kHeadBaseDescriptors;
}

uint64_t agent_descriptors_needed(int workers) { return 2 * static_cast<uint64_t>(workers) + kAgentBaseDescriptors; }

Result<void> check_head_descriptors(int nodes, int ranks, uint64_t soft, uint64_t hard) {
  uint64_t need = head_descriptors_needed(nodes, ranks);
  if (soft == 0 || need <= soft) return {};
  std::string raise = soft < hard ? fmt::format("raise it with `ulimit -n {}` (the hard limit) before running muster",
                                                hard == UINT64_MAX ? need : hard)
                                  : fmt::format("the hard limit ({}) allows no more: raise it (`nofile` in "
                                                "/etc/security/limits.conf, then log in again; check with `ulimit -Hn`)",
                                                hard);
  return make_error(ErrorKind::usage,
                    "a launch on {} nodes needs about {} open files on this machine (3 per node for its connection, "
                    "{} for muster itself and its rank logs), but the open-file limit (RLIMIT_NOFILE) here is {}; {}, "
                    "or launch on fewer nodes",
                    nodes, need, need - 3 * static_cast<uint64_t>(nodes), soft, raise);
}

Result<void> check_node_descriptors(const std::string& node, int workers, uint64_t limit) {
  uint64_t need = agent_descriptors_needed(workers);
  if (limit == 0 || need <= limit) return {};
  return make_error(ErrorKind::usage,
                    "{}: {} workers need about {} open files there (2 pipes per worker, {} for the agent), but the "
                    "open-file limit (RLIMIT_NOFILE) of your user on {} is {}, as far as its hard limit allows; raise "
                    "the hard limit there (`nofile` in /etc/security/limits.conf, then log in again; check with "
                    "`ssh {} ulimit -Hn`), or run fewer ranks per node; nothing was started",
                    node, workers, need, kAgentBaseDescriptors, node, limit, node);
}

}  // namespace muster::launch
