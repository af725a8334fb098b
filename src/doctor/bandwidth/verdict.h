// The verdict of `muster doctor --bandwidth`: which measured links are slow and which node they have in common
// (findings.h puts it in words). Pure, like checks/checks.h.
//
// The reference speed is what a healthy node reaches: the median, over the nodes, of the fastest link each
// node takes part in (so one slow node, whose every link is slow, cannot drag it down even in a 3-node ring).
// A link is slow below half of it. A node all of whose measured links are slow is named as the cause (its
// cable, NIC, switch port or shaping); other slow links are named one by one. A NIC (not a virtual link) whose
// best link reaches less than 30% of the speed it reports is flagged too (up to 25 Gb/s: one TCP stream does
// not fill faster links). Data-parallel training over sockets runs at the pace of the slowest link.
#pragma once

#include <string>
#include <vector>

#include "doctor/bandwidth/model.h"

namespace muster::doctor {

inline constexpr double kSlowLinkFraction = 0.5;
inline constexpr double kSlowNicFraction = 0.3;
inline constexpr int64_t kMaxSingleStreamMbps = 25'000;

// Per link (parallel to result.links): whether it is slow. Failed links are not slow (they are errors).
struct BandwidthVerdict {
  double reference_mbps = 0;       // 0: nothing measured
  std::vector<bool> slow;          // per link
  std::vector<std::size_t> slow_nodes;  // nodes all of whose measured links are slow
};
BandwidthVerdict judge_bandwidth(const BandwidthResult& result, std::size_t nodes);

// The fastest measured link of every node that has one (-1 for a node without a measured link).
std::vector<double> best_per_node(const BandwidthResult& result, std::size_t nodes);
// The median of the values; 0 when there are none.
double median(std::vector<double> values);

}  // namespace muster::doctor
