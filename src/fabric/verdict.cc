// The fabric verdict (verdict.h).
#include "fabric/verdict.h"

#include <algorithm>

#include <fmt/format.h>

namespace muster::fabric {
namespace {

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::string size_text(long long bytes) {
  return bytes >= (1 << 20) ? fmt::format("{} MiB", bytes >> 20) : fmt::format("{} KiB", bytes >> 10);
}

// The speed the hardware should give between the nodes: the slowest node's, 0 when a node does not say.
double hardware_gbps(const FabricMeasurement& m) {
  double slowest = 0;
  for (const auto& node : m.nodes) {
    double speed = m.backend == "nccl" && node.ib_gbps > 0 ? node.ib_gbps : node.nic_gbps;
    if (speed <= 0) return 0;
    slowest = slowest == 0 ? speed : std::min(slowest, speed);
  }
  return slowest;
}

}  // namespace

FabricVerdict judge_fabric(const FabricMeasurement& m, const std::vector<std::string>& names) {
  FabricVerdict v;
  auto name = [&](int rank) {
    return rank >= 0 && static_cast<size_t>(rank) < names.size() ? names[rank] : fmt::format("rank {}", rank);
  };
  std::vector<double> all;
  for (const auto& p : m.pairs) all.push_back(p.gbps);
  v.pair_median_gbps = median(all);
  double limit = kSlowFraction * v.pair_median_gbps;
  std::vector<bool> slow(names.size(), false);
  for (size_t node = 0; node < names.size() && !m.pairs.empty(); ++node) {
    std::vector<double> mine;
    std::vector<std::string> with;
    for (const auto& p : m.pairs) {
      if (p.a != static_cast<int>(node) && p.b != static_cast<int>(node)) continue;
      mine.push_back(p.gbps);
      with.push_back(fmt::format("{} {:.2f}", name(p.a == static_cast<int>(node) ? p.b : p.a), p.gbps));
    }
    double own = median(mine);
    if (mine.empty() || own >= limit) continue;
    slow[node] = true;
    v.slow_nodes.push_back(names[node]);
    v.findings.push_back(
        {Severity::warning, "fabric", names[node],
         fmt::format("{}'s link is slow: all_reduce with each other node gives {:.2f} Gbit/s (median; with {}), the "
                     "other pairs {:.2f} Gbit/s. The ring runs at the slowest link's speed, so every job on this node "
                     "does",
                     names[node], own, fmt::join(with, ", "), v.pair_median_gbps),
         fmt::format("on {}: check the cable, NIC and switch port (ethtool <nic>: the negotiated speed; ip -s link: "
                     "errors and drops; tc qdisc: a rate limit); until it is fixed, leave it out of jobs "
                     "(muster launch --exclude-hosts {})",
                     names[node], names[node])});
  }
  for (const auto& p : m.pairs) {
    bool a_slow = static_cast<size_t>(p.a) < slow.size() && slow[p.a];
    bool b_slow = static_cast<size_t>(p.b) < slow.size() && slow[p.b];
    if (p.gbps >= limit || a_slow || b_slow) continue;
    std::string link = fmt::format("{}-{}", name(p.a), name(p.b));
    v.slow_links.push_back(link);
    v.findings.push_back({Severity::warning, "fabric", name(p.a),
                          fmt::format("the link {} is slow: {:.2f} Gbit/s between the two, the other pairs {:.2f} "
                                      "Gbit/s (median), while each node is fast with the others",
                                      link, p.gbps, v.pair_median_gbps),
                          fmt::format("check the path between {} and {} (a switch port or route between them)",
                                      name(p.a), name(p.b))});
  }
  if (m.ring.empty()) return v;
  const RingPoint& top = m.ring.back();
  double hardware = hardware_gbps(m);
  std::string against =
      hardware > 0 ? fmt::format("{:.0f}% of the links' {:.0f} Gbit/s", 100 * top.busbw_gbps / hardware, hardware)
                   : "the NICs are virtual or do not say their speed: no hardware figure";
  std::string summary = fmt::format(
      "all_reduce ({}, {} ranks): bus bandwidth {:.2f} Gbit/s at {} ({}){}", m.backend, names.size(), top.busbw_gbps,
      size_text(top.bytes), against,
      m.pairs.empty() ? std::string("; pairwise rounds need 3 nodes")
                      : fmt::format("; pairs {:.2f} Gbit/s (median of {})", v.pair_median_gbps, m.pairs.size()));
  if (v.slow_nodes.empty() && v.slow_links.empty() && !m.pairs.empty() && top.busbw_gbps < limit) {
    v.findings.push_back({Severity::warning, "fabric", "",
                          "the ring is slow but no single node or link is: " + summary,
                          "the nodes' CPUs or the switch under load: run doctor --fabric again on an idle cluster"});
  } else if (m.backend == "nccl" && hardware > 0 && top.busbw_gbps < kHardwareFraction * hardware) {
    v.findings.push_back({Severity::warning, "fabric", "",
                          "bus bandwidth is more than 20% below what the links should give: " + summary,
                          "check NCCL_IB_HCA / NCCL_SOCKET_IFNAME, GPUDirect RDMA (nvidia_peermem) and the ports' "
                          "rate (doctor --gpu)"});
  } else if (v.findings.empty()) {
    v.findings.push_back({Severity::ok, "fabric", "", summary, ""});
  } else {
    v.findings.push_back({Severity::ok, "fabric", "", "measured: " + summary, ""});
  }
  return v;
}

}  // namespace muster::fabric
