// Connecting an AgentPool to the hosts the flags select: shared by the commands that act on every node
// (setup, doctor). The transport is chosen as launch's `--transport auto` does (choose_transport).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/host_options.h"
#include "head/agent_pool.h"

namespace muster::cli {

struct PoolFlags {
  HostOptions hosts;
  int connect_timeout_s = 10;
  std::string ssh_config;
};

// --connect-timeout and --ssh-config (the host options are added separately).
void add_pool_flags(CLI::App& app, PoolFlags& flags);

// True when every host is this machine (localhost / 127.0.0.1 without a user).
bool all_local(const std::vector<cluster::NodeSlots>& nodes);

// The transport `--transport NAME` asks for (auto, ssh, slurm, local). `auto`: local when every host is this
// machine; slurm inside a Slurm allocation (SLURM_JOB_ID set) when no -H/-w was given, so the hosts are the
// allocation's; else ssh. `slurm` outside an allocation is a usage error.
Result<head::TransportKind> choose_transport(const std::string& name, const HostOptions& hosts,
                                             const std::vector<cluster::NodeSlots>& nodes);

// Resolves the hosts, starts one agent on each and waits until all are ready. `names` gets the node names in
// pool order.
Result<std::unique_ptr<head::AgentPool>> connect_pool(const PoolFlags& flags, std::vector<std::string>& names);

// The two halves of connect_pool, for commands that connect to only some of the nodes (sync's relay chain):
// the selected nodes with the transport `auto` picks for them, and a pool of some of them.
Result<std::vector<head::PoolNode>> select_pool_nodes(const PoolFlags& flags, head::TransportKind& transport);
Result<std::unique_ptr<head::AgentPool>> connect_nodes(const PoolFlags& flags, std::vector<head::PoolNode> nodes,
                                                       head::TransportKind transport);

}  // namespace muster::cli
