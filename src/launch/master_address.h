// MASTER_ADDR, decided in one place: --master-addr when given; on the local transport 127.0.0.1; on Slurm node 0's
// Slurm name (it resolves on every node of the cluster); otherwise the address the head reached node 0 on (over
// ssh: the server side of SSH_CONNECTION), else node 0's first address, else its name. Before the agents are
// connected (--print-env) `node0` is null and the answer may be a placeholder.
#pragma once

#include <string>

#include "launch/launch_options.h"
#include "protocol/messages.h"

namespace muster::launch {

std::string master_address(const LaunchOptions& options, const protocol::Hello* node0);

}  // namespace muster::launch
