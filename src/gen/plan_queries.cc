#include "gen/plan_queries.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace muster::gen {

std::string master_address(const cluster::RankPlan& plan, const GenOptions& options) {
  if (!options.master_addr.empty()) return options.master_addr;
  return plan.nodes.empty() ? std::string("localhost") : plan.nodes.front().host.name;
}

Result<int> uniform_workers(const cluster::RankPlan& plan, std::string_view kind, std::string_view reason) {
  if (plan.nodes.empty()) return make_error(ErrorKind::usage, "{}: no nodes selected", kind);
  const cluster::NodePlan& first = plan.nodes.front();
  for (const cluster::NodePlan& node : plan.nodes) {
    if (node.ranks.size() != first.ranks.size()) {
      return make_error(ErrorKind::usage,
                        "{}: {}, but {} runs {} and {} runs {}; choose one count with --nproc-per-node", kind,
                        reason, first.host.name, first.ranks.size(), node.host.name, node.ranks.size());
    }
  }
  return static_cast<int>(first.ranks.size());
}

std::vector<int> node_devices(const cluster::NodePlan& node) {
  std::vector<int> devices;
  for (const auto& rank : node.ranks) devices.push_back(rank.device);
  return devices;
}

bool uses_first_devices(const cluster::NodePlan& node) {
  for (size_t i = 0; i < node.ranks.size(); ++i) {
    if (node.ranks[i].device != static_cast<int>(i)) return false;
  }
  return true;
}

std::string device_list(const cluster::NodePlan& node) {
  return fmt::format("{}", fmt::join(node_devices(node), ","));
}

std::string node_file_name(const cluster::RankPlan& plan, const cluster::NodePlan& node,
                           std::string_view suffix) {
  auto same_name = std::count_if(plan.nodes.begin(), plan.nodes.end(), [&](const cluster::NodePlan& other) {
    return other.host.name == node.host.name;
  });
  if (same_name > 1) return fmt::format("{}-{}{}", node.host.name, node.node_rank, suffix);
  return fmt::format("{}{}", node.host.name, suffix);
}

bool is_ipv4_address(std::string_view text) {
  int parts = 0;
  size_t start = 0;
  while (true) {
    size_t end = text.find('.', start);
    std::string_view part =
        text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (part.empty() || part.size() > 3 ||
        !std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return false;
    }
    if (std::stoi(std::string(part)) > 255) return false;
    ++parts;
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return parts == 4;
}

}  // namespace muster::gen
