#include "launch/exit_table.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include <fmt/core.h>

#include "cluster/node_set.h"

namespace muster::launch {
namespace {

std::string header() {
  return fmt::format("  {:>5}  {:<20} {:>5}  {:<16} {}\n", "rank", "node", "local", "state", "detail");
}

std::string row(const Gang& gang, const cluster::NodePlan& node, const cluster::RankAssignment& rank) {
  const auto& status = gang.status(rank.global_rank);
  std::string note = gang.root_cause() == rank.global_rank
                         ? "  <- root cause"
                         : (status.by_muster ? "  (stopped by muster)" : "");
  return fmt::format("  {:>5}  {:<20} {:>5}  {:<16} {}{}\n", rank.global_rank, node.host.name,
                     rank.local_rank, rank_phase_name(status.phase), status.detail, note);
}

// The ranks that ended the same way, and their nodes.
struct Ending {
  std::vector<int> ranks;
  std::vector<std::string> nodes;
};

// How a rank ended, as its folded line says it: ended by itself before muster stopped anything sorts first.
using EndingKey = std::tuple<bool, std::string>;

EndingKey ending_key(const RankStatus& status) {
  std::string what = status.detail.empty() ? rank_phase_name(status.phase) : status.detail;
  if (status.by_muster) what += " (stopped by muster)";
  return {status.by_muster, what};
}

std::string folded_line(const Ending& ending, const std::string& what) {
  std::string ranks = ending.ranks.size() == 1
                          ? fmt::format("rank {}", ending.ranks.front())
                          : fmt::format("ranks {} ({})", cluster::fold_numbers(ending.ranks), ending.ranks.size());
  return fmt::format("  {} on {}: {}\n", ranks, cluster::counted_nodes(ending.nodes), what);
}

std::string folded_table(const Gang& gang, const cluster::RankPlan& plan, size_t max_rows) {
  std::string table = header();
  std::map<EndingKey, Ending> endings;
  std::vector<EndingKey> order;  // kinds of ending, by their first rank; (by_muster, ...) false first
  for (const auto& node : plan.nodes) {
    for (const auto& rank : node.ranks) {
      if (gang.root_cause() == rank.global_rank) {
        table += row(gang, node, rank);
        continue;
      }
      EndingKey key = ending_key(gang.status(rank.global_rank));
      Ending& ending = endings[key];
      if (ending.ranks.empty()) order.push_back(key);
      ending.ranks.push_back(rank.global_rank);
      ending.nodes.push_back(node.host.name);
    }
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const EndingKey& a, const EndingKey& b) { return std::get<0>(a) < std::get<0>(b); });
  size_t shown = 0, hidden_ranks = 0;
  for (const auto& key : order) {
    const Ending& ending = endings[key];
    if (shown++ < max_rows) {
      table += folded_line(ending, std::get<1>(key));
    } else {
      hidden_ranks += ending.ranks.size();
    }
  }
  if (shown > max_rows) {
    table += fmt::format("  ... and {} more ranks that ended in {} other ways\n", hidden_ranks, shown - max_rows);
  }
  return table;
}

}  // namespace

std::string format_exit_table(const Gang& gang, const cluster::RankPlan& plan, size_t max_rows) {
  if (static_cast<size_t>(gang.world_size()) > max_rows) return folded_table(gang, plan, max_rows);
  std::string table = header();
  for (const auto& node : plan.nodes) {
    for (const auto& rank : node.ranks) table += row(gang, node, rank);
  }
  return table;
}

}  // namespace muster::launch
