// `muster gen ssh-config`: one `Host` block per node for ~/.ssh/config, so `ssh node1` (and muster, which
// uses the system ssh) reaches each node by its short name: HostName (the --address, else the name), User
// (--user, else the hostfile's user@), IdentityFile and Port when given. Pure.
#pragma once

#include <vector>

#include "cluster/rank_plan.h"
#include "gen/gen_options.h"
#include "util/result.h"

namespace muster::gen {

Result<std::vector<GeneratedFile>> render_ssh_config(const cluster::RankPlan& plan,
                                                     const GenOptions& options);

}  // namespace muster::gen
