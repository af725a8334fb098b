// Connecting an AgentPool to the hosts a command selects, with the transport `auto` picks: shared by every
// command that acts on all nodes (launch, doctor, sync, setup).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "head/agent_pool.h"
#include "head/host_selection.h"

namespace muster::head {

struct ConnectOptions {
  HostSelection hosts;
  int connect_timeout_s = 10;
  std::string ssh_config;  // ssh -F FILE; empty: the user's ~/.ssh/config
  std::string ssh_kex = "fast";  // transport/ssh_kex.h
  size_t fanout = kDefaultFanout;  // PoolOptions::fanout (0: the star)
  bool fall_back_to_star = true;
  std::string ssh_cipher = "auto";  // transport/ssh_cipher.h
};

// True when every host is this machine (localhost / 127.0.0.1 without a user).
bool all_local(const std::vector<cluster::NodeSlots>& nodes);

// The transport `name` asks for (auto, ssh, slurm, local). `auto`: local when every host is this machine;
// slurm inside a Slurm allocation (SLURM_JOB_ID set) when no hostfile or hostlist was given, so the hosts are
// the allocation's; else ssh. `slurm` outside an allocation is a usage error.
Result<transport::TransportKind> choose_transport(const std::string& name, const HostSelection& hosts,
                                                  const std::vector<cluster::NodeSlots>& nodes);

// Resolves the hosts, starts one agent on each and waits until all are ready. `names` gets the node names in
// pool order.
Result<std::unique_ptr<AgentPool>> connect_pool(const ConnectOptions& options, std::vector<std::string>& names);

// The two halves of connect_pool, for commands that connect to only some of the nodes (sync's relay chain):
// the selected nodes with the transport `auto` picks for them, and a pool of some of them.
Result<std::vector<PoolNode>> select_pool_nodes(const ConnectOptions& options,
                                                transport::TransportKind& transport);
Result<std::unique_ptr<AgentPool>> connect_nodes(const ConnectOptions& options, std::vector<PoolNode> nodes,
                                                 transport::TransportKind transport);

}  // namespace muster::head
