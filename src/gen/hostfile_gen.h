// `muster gen hostfile`: the selection as a DeepSpeed hostfile (`host slots=N`, one line per node), read back
// equal by cluster::parse_hostfile and by DeepSpeed's runner (which skips `#` lines). Pure.
#pragma once

#include <vector>

#include "cluster/rank_plan.h"
#include "gen/gen_options.h"

namespace muster::gen {

std::vector<GeneratedFile> render_hostfile(const cluster::RankPlan& plan, const GenOptions& options);

}  // namespace muster::gen
