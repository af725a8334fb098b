#include "launch/fd_budget.h"

#include <algorithm>

#include "logs/rank_log.h"

namespace muster::launch {

uint64_t head_descriptors_needed(size_t connections, int ranks) {
  auto logs = static_cast<uint64_t>(std::min(ranks, logs::RankLogSet::kDefaultMaxOpen));
  return kDescriptorsPerConnection * connections + logs + kHeadBaseDescriptors;
}

uint64_t agent_descriptors_needed(int workers, size_t children) {
  return 2 * static_cast<uint64_t>(workers) + kDescriptorsPerConnection * children + kAgentBaseDescriptors;
}

size_t head_connections(const head::RelayTree& tree) {
  return static_cast<size_t>(std::count(tree.parent.begin(), tree.parent.end(), head::RelayTree::kHead));
}

std::vector<size_t> relay_children(const head::RelayTree& tree) {
  std::vector<size_t> children(tree.size(), 0);
  for (size_t parent : tree.parent) {
    if (parent != head::RelayTree::kHead) ++children[parent];
  }
  return children;
}

Result<void> check_head_descriptors(int nodes, size_t connections, int ranks, uint64_t soft, uint64_t hard) {
  uint64_t need = head_descriptors_needed(connections, ranks);
  if (soft == 0 || need <= soft) return {};
  uint64_t for_connections = kDescriptorsPerConnection * connections;
  std::string raise = soft < hard ? fmt::format("raise it with `ulimit -n {}` (the hard limit) before running muster",
                                                hard == UINT64_MAX ? need : hard)
                                  : fmt::format("the hard limit ({}) allows no more: raise it (`nofile` in "
                                                "/etc/security/limits.conf, then log in again; check with `ulimit -Hn`)",
                                                hard);
  std::string connected = static_cast<size_t>(nodes) == connections
                              ? fmt::format("3 per node for its connection")
                              : fmt::format("3 for each of the {} nodes it connects to itself", connections);
  std::string smaller = static_cast<size_t>(nodes) == connections ? "launch on fewer nodes"
                                                                  : "give a smaller --fanout";
  return make_error(ErrorKind::usage,
                    "a launch on {} nodes needs about {} open files on this machine ({}, {} for muster itself and "
                    "its rank logs), but the open-file limit (RLIMIT_NOFILE) here is {}; {}, or {}; nothing was "
                    "started",
                    nodes, need, connected, need - for_connections, soft, raise, smaller);
}

Result<void> check_node_descriptors(const std::string& node, int workers, size_t children, uint64_t limit) {
  uint64_t need = agent_descriptors_needed(workers, children);
  if (limit == 0 || need <= limit) return {};
  std::string who = children == 0 ? fmt::format("{} workers", workers)
                                  : fmt::format("{} workers and the {} agents it starts below it in the launch tree",
                                                workers, children);
  std::string per = children == 0 ? "2 pipes per worker" : "2 pipes per worker, 3 per agent below it";
  std::string fewer = children == 0 ? "" : " (or give a smaller --fanout)";
  return make_error(ErrorKind::usage,
                    "{}: {} need about {} open files there ({}, {} for the agent), but the open-file limit "
                    "(RLIMIT_NOFILE) of your user on {} is {}, as far as its hard limit allows; raise the hard limit "
                    "there (`nofile` in /etc/security/limits.conf, then log in again; check with `ssh {} ulimit "
                    "-Hn`), or run fewer ranks per node{}; nothing was started",
                    node, who, need, per, kAgentBaseDescriptors, node, limit, node, fewer);
}

}  // namespace muster::launch
