#include "launch/attempt.h"

#include <algorithm>

namespace muster::launch {

size_t Attempt::node_of_rank(int rank) const {
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    const auto& node = plan.nodes[i];
    if (rank >= node.first_global_rank && rank < node.first_global_rank + static_cast<int>(node.ranks.size())) {
      return nodes[i];
    }
  }
  return nodes.empty() ? 0 : nodes.front();
}

bool Attempt::has_node(size_t node) const { return std::find(nodes.begin(), nodes.end(), node) != nodes.end(); }

int Attempt::node_rank_of(size_t node) const {
  auto it = std::find(nodes.begin(), nodes.end(), node);
  return it == nodes.end() ? -1 : static_cast<int>(it - nodes.begin());
}

cluster::RankPlan plan_for(const cluster::RankPlan& full, const std::vector<size_t>& nodes) {
  cluster::RankPlan plan;
  int next_rank = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    cluster::NodePlan node = full.nodes.at(nodes[i]);
    node.node_rank = static_cast<int>(i);
    node.first_global_rank = next_rank;
    for (auto& rank : node.ranks) {
      rank.global_rank = next_rank++;
      rank.node_rank = static_cast<int>(i);
    }
    plan.max_local_world_size = std::max(plan.max_local_world_size, static_cast<int>(node.ranks.size()));
    plan.nodes.push_back(std::move(node));
  }
  plan.world_size = next_rank;
  return plan;
}

}  // namespace muster::launch
