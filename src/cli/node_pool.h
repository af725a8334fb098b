// Connecting an AgentPool to the hosts the flags select: shared by the commands that act on every node
// (setup, doctor). `localhost`-only selections use the local transport, the rest ssh, as launch does.
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

// Resolves the hosts, starts one agent on each and waits until all are ready. `names` gets the node names in
// pool order.
Result<std::unique_ptr<head::AgentPool>> connect_pool(const PoolFlags& flags, std::vector<std::string>& names);

}  // namespace muster::cli
