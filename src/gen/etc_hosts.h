// `muster gen hosts`: /etc/hosts lines (`ADDRESS NAME`) so that every node resolves every other by name,
// the step the how-tos do by hand before NCCL and torchrun can find the master. Each node needs an address
// and a name: the address from --address NAME=IP or from the hostfile listing the node by its IP; the name
// from the hostfile, or from --names (a hostlist, one name per node in order), which nodes listed by IP
// need. A node without an address or a name is a usage error that names it. Pure.
#pragma once

#include <vector>

#include "cluster/rank_plan.h"
#include "gen/gen_options.h"
#include "util/result.h"

namespace muster::gen {

Result<std::vector<GeneratedFile>> render_etc_hosts(const cluster::RankPlan& plan, const GenOptions& options);

}  // namespace muster::gen
