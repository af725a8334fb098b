#include "gen/etc_hosts.h"

#include <fmt/format.h>

#include <algorithm>

#include "cluster/host_name.h"
#include "gen/node_addresses.h"
#include "gen/plan_queries.h"
#include "gen/provenance.h"

namespace muster::gen {
namespace {

struct HostsLine {
  std::string address, name;
};

Result<std::string> node_name(const cluster::RankPlan& plan, const cluster::NodePlan& node,
                              const NetworkOptions& network) {
  if (!network.names.empty()) {
    const std::string& name = network.names[static_cast<size_t>(node.node_rank)];
    if (auto problem = cluster::check_host_name(name)) {
      return make_error(ErrorKind::usage, "hosts: --names: {}", problem->message);
    }
    return name;
  }
  if (is_ipv4_address(node.host.name)) {
    return make_error(ErrorKind::usage,
                      "hosts: node {} is listed by its address and has no name; name the nodes with --names "
                      "(one per node, in order, e.g. --names 'node[1-{}]')",
                      node.host.name, plan.nodes.size());
  }
  return node.host.name;
}

Result<std::vector<HostsLine>> hosts_lines(const cluster::RankPlan& plan, const NetworkOptions& network) {
  if (!network.names.empty() && network.names.size() != plan.nodes.size()) {
    return make_error(ErrorKind::usage, "hosts: --names gives {} names for {} nodes", network.names.size(),
                      plan.nodes.size());
  }
  std::vector<HostsLine> lines;
  for (const auto& node : plan.nodes) {
    auto address = node_address(node, network);
    if (!address) {
      return make_error(ErrorKind::usage,
                        "hosts: no address for node '{}'; add --address {}=IP (or list the node by its IP)",
                        node.host.name, node.host.name);
    }
    auto name = node_name(plan, node, network);
    if (!name) return name.error();
    lines.push_back({*address, *name});
  }
  return lines;
}

}  // namespace

Result<std::vector<GeneratedFile>> render_etc_hosts(const cluster::RankPlan& plan,
                                                    const GenOptions& options) {
  if (auto valid = check_addresses(plan, options.network, "hosts"); !valid) return valid.error();
  auto lines = hosts_lines(plan, options.network);
  if (!lines) return lines.error();
  size_t width = 0;
  for (const auto& line : *lines) width = std::max(width, line.address.size());
  std::string text = generated_comment(options);
  text += "# Append to /etc/hosts on every node and on the machine you launch from.\n";
  for (const auto& line : *lines) text += fmt::format("{:<{}} {}\n", line.address, width, line.name);
  return std::vector<GeneratedFile>{{.name = "hosts", .text = text, .node_rank = -1}};
}

}  // namespace muster::gen
