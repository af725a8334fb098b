#include "cluster/rank_plan.h"

#include <fmt/format.h>

#include <algorithm>

namespace muster::cluster {
namespace {

NodePlan plan_node(const NodeSlots& node, int node_rank, int first_global_rank) {
  NodePlan plan{
      .host = node.host, .node_rank = node_rank, .first_global_rank = first_global_rank, .ranks = {}};
  const int local_world_size = static_cast<int>(node.slots.size());
  for (int local_rank = 0; local_rank < local_world_size; ++local_rank) {
    plan.ranks.push_back(RankAssignment{.global_rank = first_global_rank + local_rank,
                                        .local_rank = local_rank,
                                        .node_rank = node_rank,
                                        .local_world_size = local_world_size,
                                        .device = node.slots[static_cast<size_t>(local_rank)]});
  }
  return plan;
}

// `0-3,5,7-8`: consecutive numbers as ranges.
std::string format_ranges(const std::vector<int>& numbers) {
  std::string text;
  for (size_t i = 0; i < numbers.size();) {
    size_t end = i + 1;
    while (end < numbers.size() && numbers[end] == numbers[end - 1] + 1) ++end;
    if (!text.empty()) text += ',';
    text += end - i == 1 ? fmt::format("{}", numbers[i]) : fmt::format("{}-{}", numbers[i], numbers[end - 1]);
    i = end;
  }
  return text.empty() ? "-" : text;
}

struct TableRow {
  std::string node, host, ranks, devices;
};

TableRow row_of(const NodePlan& node) {
  std::vector<int> global, devices;
  for (const RankAssignment& rank : node.ranks) {
    global.push_back(rank.global_rank);
    devices.push_back(rank.device);
  }
  return {fmt::format("{}", node.node_rank), node.host.destination(), format_ranges(global),
          format_ranges(devices)};
}

}  // namespace

std::vector<Host> hosts_of_plan(const RankPlan& plan) {
  std::vector<Host> hosts;
  for (const NodePlan& node : plan.nodes) {
    Host host = node.host;
    host.slots = static_cast<int>(node.ranks.size());
    if (host.max_slots != -1 && host.max_slots < host.slots) host.max_slots = -1;
    hosts.push_back(host);
  }
  return hosts;
}

RankPlan make_rank_plan(const std::vector<NodeSlots>& nodes) {
  RankPlan plan;
  for (size_t i = 0; i < nodes.size(); ++i) {
    plan.nodes.push_back(plan_node(nodes[i], static_cast<int>(i), plan.world_size));
    const int local_world_size = static_cast<int>(nodes[i].slots.size());
    plan.world_size += local_world_size;
    plan.max_local_world_size = std::max(plan.max_local_world_size, local_world_size);
  }
  return plan;
}

std::string format_rank_plan(const RankPlan& plan) {
  std::vector<TableRow> rows{{"NODE", "HOST", "RANKS", "DEVICES"}};
  for (const NodePlan& node : plan.nodes) rows.push_back(row_of(node));
  size_t node_width = 0, host_width = 0, ranks_width = 0;
  for (const TableRow& row : rows) {
    node_width = std::max(node_width, row.node.size());
    host_width = std::max(host_width, row.host.size());
    ranks_width = std::max(ranks_width, row.ranks.size());
  }
  std::string text;
  for (const TableRow& row : rows) {
    text += fmt::format("{:<{}}  {:<{}}  {:<{}}  {}\n", row.node, node_width, row.host, host_width, row.ranks,
                        ranks_width, row.devices);
  }
  text += fmt::format("world size {} on {} node{}, at most {} per node\n", plan.world_size, plan.nodes.size(),
                      plan.nodes.size() == 1 ? "" : "s", plan.max_local_world_size);
  return text;
}

}  // namespace muster::cluster
