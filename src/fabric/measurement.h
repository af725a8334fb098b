// What one `doctor --fabric` run measured, as rank 0 of the sweep (sweep.py) prints it: the ring's bus bandwidth
// per size, every pair's bandwidth from the pairwise rounds, each node's NIC. Plain data and its parser (pure).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/result.h"

namespace muster::fabric {

struct RingPoint {
  long long bytes = 0;
  double seconds = 0;     // per all_reduce, the slowest rank's
  double busbw_gbps = 0;  // bus bandwidth (nccl-tests' definition: bytes * 2(n-1)/n / time), Gbit/s
};

struct PairPoint {
  int a = 0, b = 0;  // ranks = node indices (one rank per node)
  double seconds = 0;
  double gbps = 0;   // bytes / time of one all_reduce between the two, Gbit/s
};

struct NodeNic {
  std::string host;   // the node's hostname
  std::string nic;    // the interface that reaches MASTER_ADDR
  double nic_gbps = 0;  // its speed from /sys; 0: virtual or unknown
  double ib_gbps = 0;   // the fastest ACTIVE InfiniBand port's rate; 0: none
};

struct FabricMeasurement {
  std::string backend;  // nccl or gloo
  std::vector<RingPoint> ring;
  std::vector<PairPoint> pairs;
  std::vector<NodeNic> nodes;  // by rank
};

inline constexpr std::string_view kResultMarker = "MUSTER-FABRIC ";

// The measurement in rank 0's log (the last line that starts with kResultMarker); an error naming what is wrong.
Result<FabricMeasurement> parse_measurement(std::string_view rank0_log);

nlohmann::json measurement_json(const FabricMeasurement& measurement, const std::vector<std::string>& names);

}  // namespace muster::fabric
