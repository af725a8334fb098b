// Judging a fabric measurement (pure): which nodes or links are slow, and how the ring compares with the pairs and
// with the hardware. A node is slow when the median of its pairs' bandwidth is below half the median of all pairs
// (one slow NIC or cable slows every pair it is in, and the ring with them); a link is slow when its pair is below
// half the median while neither of its nodes is. (sweep.py has measured such a pair a second time, alone.) The ring's bus bandwidth is set against the NICs' speed from /sys
// (InfiniBand's rate with NCCL) where the hardware says one: a warning below 80% with NCCL (nccl-tests' rule of
// thumb); with gloo (TCP, CPU-bound) only the ratio is shown. A virtual NIC (veth, a container's) has no speed.
#pragma once

#include <string>
#include <vector>

#include "fabric/measurement.h"
#include "util/finding.h"

namespace muster::fabric {

inline constexpr double kSlowFraction = 0.5;
inline constexpr double kHardwareFraction = 0.8;

struct FabricVerdict {
  std::vector<Finding> findings;        // check "fabric"; an ok one when nothing is wrong
  std::vector<std::string> slow_nodes;  // by name
  std::vector<std::string> slow_links;  // "nodeA-nodeB"
  double pair_median_gbps = 0;
};

// `names`: the node of each rank (one rank per node).
FabricVerdict judge_fabric(const FabricMeasurement& measurement, const std::vector<std::string>& names);

}  // namespace muster::fabric
