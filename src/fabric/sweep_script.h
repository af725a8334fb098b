// The Python program every rank of `doctor --fabric` runs (src/fabric/sweep.py, compiled in): the all_reduce ring
// sweep and pairwise rounds with torch.distributed, rank 0's "MUSTER-FABRIC {json}" line (measurement.h reads it).
#pragma once

#include <string_view>

namespace muster::fabric {

std::string_view sweep_script_text();

}  // namespace muster::fabric
