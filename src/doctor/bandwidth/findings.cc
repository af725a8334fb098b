#include "doctor/bandwidth/findings.h"

#include <algorithm>

#include <fmt/format.h>

#include "doctor/bandwidth/table.h"
#include "doctor/bandwidth/verdict.h"

namespace muster::doctor {
namespace {

std::string link_name(const std::vector<std::string>& names, const Link& link) {
  return names[link.from] + " → " + names[link.to];
}

std::string interface_note(const NodeInterface& interface, double best_mbps) {
  if (interface.name.empty() || interface.speed_mbps <= 0) return "";
  if (interface.speed_mbps <= best_mbps * 1.2) {
    return fmt::format("; its {} negotiated only {} Mb/s (a bad cable or port, or a forced speed)", interface.name,
                       interface.speed_mbps);
  }
  return fmt::format("; its {} reports {} Mb/s, so the limit is elsewhere", interface.name, interface.speed_mbps);
}

Finding slow_node_finding(const std::vector<std::string>& names, const BandwidthResult& result,
                          const BandwidthVerdict& verdict, size_t node) {
  std::string links;
  double best = 0;
  for (size_t k = 0; k < result.links.size(); ++k) {
    if (!verdict.slow[k] || !touches(result.links[k], node)) continue;
    best = std::max(best, result.samples[k].mbps);
    links += fmt::format("{}{} {}", links.empty() ? "" : ", ", link_name(names, result.links[k]),
                         format_rate(result.samples[k].mbps));
  }
  const NodeInterface& interface = result.interfaces.size() > node ? result.interfaces[node] : NodeInterface{};
  std::string device = interface.name.empty() ? "its interface" : interface.name;
  return {Severity::warning, "bandwidth", names[node],
          fmt::format("{}'s links are slow: {} vs {} for the other nodes{}; NCCL/gloo over sockets will run at "
                      "this speed",
                      names[node], links, format_rate(verdict.reference_mbps), interface_note(interface, best)),
          fmt::format("on {}: check the cable, NIC and switch port (ethtool {}: speed, duplex, errors) and any "
                      "traffic shaping (tc qdisc show dev {}); or leave {} out of the job",
                      names[node], device, device, names[node])};
}

void add_nic_findings(const std::vector<std::string>& names, const BandwidthResult& result,
                      const std::vector<double>& best, std::vector<Finding>& out) {
  for (size_t node = 0; node < result.interfaces.size() && node < best.size(); ++node) {
    const NodeInterface& nic = result.interfaces[node];
    if (!nic.physical || nic.speed_mbps <= 0 || nic.speed_mbps > kMaxSingleStreamMbps || best[node] < 0) continue;
    if (best[node] >= kSlowNicFraction * static_cast<double>(nic.speed_mbps)) continue;
    out.push_back({Severity::warning, "bandwidth", names[node],
                   fmt::format("{}'s best link reaches {}, {:.0f}% of the {} Mb/s its {} reports", names[node],
                               format_rate(best[node]), 100 * best[node] / static_cast<double>(nic.speed_mbps),
                               nic.speed_mbps, nic.name),
                   fmt::format("check the switch ports and cabling between the nodes, MTU and flow control "
                               "(ethtool -a {}), and what else uses the link", nic.name)});
  }
}

std::string summary(const std::vector<std::string>& names, const BandwidthResult& result,
                    const BandwidthVerdict& verdict) {
  std::vector<double> rtts;
  size_t measured = 0, slowest = result.links.size();
  for (size_t k = 0; k < result.links.size(); ++k) {
    if (!result.samples[k].ok) continue;
    ++measured;
    if (result.samples[k].rtt_us >= 0) rtts.push_back(result.samples[k].rtt_us);
    if (slowest == result.links.size() || result.samples[k].mbps < result.samples[slowest].mbps) slowest = k;
  }
  std::string text = fmt::format("{} of {} links measured ({}, {:.1f} s each): a healthy node reaches {}",
                                 measured, result.links.size(),
                                 result.mode == BandwidthMode::ring ? "ring" : "all pairs", result.seconds,
                                 format_rate(verdict.reference_mbps));
  if (slowest < result.links.size()) {
    text += fmt::format(", slowest {} {}", link_name(names, result.links[slowest]),
                        format_rate(result.samples[slowest].mbps));
  }
  if (!rtts.empty()) text += fmt::format(", round trip median {:.0f} µs", median(rtts));
  return text + "\n" + format_bandwidth_table(names, result, verdict);
}

}  // namespace

std::vector<Finding> check_bandwidth(const std::vector<std::string>& names, const BandwidthResult& result) {
  std::vector<Finding> out;
  BandwidthVerdict verdict = judge_bandwidth(result, names.size());
  auto explained = [&](const Link& link) {
    return std::any_of(verdict.slow_nodes.begin(), verdict.slow_nodes.end(),
                       [&](size_t node) { return touches(link, node); });
  };
  for (size_t node : verdict.slow_nodes) out.push_back(slow_node_finding(names, result, verdict, node));
  for (size_t k = 0; k < result.links.size(); ++k) {
    const Link& link = result.links[k];
    const LinkSample& sample = result.samples[k];
    if (!sample.ok) {
      out.push_back({Severity::warning, "bandwidth", names[link.from],
                     fmt::format("{}: could not measure: {}", link_name(names, link), sample.error),
                     fmt::format("allow TCP on any port from {} to {} (NCCL and gloo connect on ephemeral ports)",
                                 names[link.from], names[link.to])});
    } else if (verdict.slow[k] && !explained(link)) {
      out.push_back({Severity::warning, "bandwidth", names[link.from],
                     fmt::format("{} is slow: {} vs {} for a healthy node", link_name(names, link),
                                 format_rate(sample.mbps), format_rate(verdict.reference_mbps)),
                     fmt::format("check the path between {} and {} (switch, uplinks, cabling; tc qdisc on both)",
                                 names[link.from], names[link.to])});
    }
  }
  add_nic_findings(names, result, best_per_node(result, names.size()), out);
  if (verdict.reference_mbps > 0) out.push_back({Severity::ok, "bandwidth", "", summary(names, result, verdict), ""});
  return out;
}

}  // namespace muster::doctor
