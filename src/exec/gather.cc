#include "exec/gather.h"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/core.h>

#include "cluster/node_set.h"
#include "exec/line_diff.h"

namespace muster::exec {
namespace {

constexpr const char* kSeparator = "---------------";  // clush's header rule

std::string header(const std::vector<std::string>& nodes) {
  return fmt::format("{}\n{}\n{}\n", kSeparator, cluster::counted_nodes(nodes), kSeparator);
}

std::string with_final_newline(std::string text) {
  if (!text.empty() && text.back() != '\n') text += '\n';
  return text;
}

// The position of each node in set order, so groups can be ordered by their first node.
std::map<std::string, size_t> set_positions(const std::vector<NodeOutcome>& outcomes) {
  std::vector<std::string> names;
  for (const auto& outcome : outcomes) names.push_back(outcome.node);
  std::map<std::string, size_t> position;
  auto sorted = cluster::sorted_node_set(names);
  for (size_t i = 0; i < sorted.size(); ++i) position[sorted[i]] = i;
  return position;
}

}  // namespace

std::vector<OutputGroup> gather_outputs(const std::vector<NodeOutcome>& outcomes, bool with_empty) {
  std::map<std::pair<int, std::string>, std::vector<std::string>> by_output;
  for (const auto& outcome : outcomes) {
    if (!outcome.ran() || (outcome.out.empty() && !with_empty)) continue;
    by_output[{exit_status(outcome), outcome.out}].push_back(outcome.node);
  }
  auto position = set_positions(outcomes);
  std::vector<OutputGroup> groups;
  for (auto& [key, nodes] : by_output) {
    groups.push_back({cluster::sorted_node_set(nodes), key.second, key.first});
  }
  std::sort(groups.begin(), groups.end(), [&](const OutputGroup& a, const OutputGroup& b) {
    return std::make_tuple(b.nodes.size(), position[a.nodes.front()]) <
           std::make_tuple(a.nodes.size(), position[b.nodes.front()]);
  });
  return groups;
}

std::string format_gathered(const std::vector<OutputGroup>& groups) {
  std::string text;
  for (const auto& group : groups) text += header(group.nodes) + with_final_newline(group.output);
  return text;
}

std::string format_diffs(const std::vector<OutputGroup>& groups) {
  if (groups.empty()) return "";
  const OutputGroup& common = groups.front();
  std::string text = header(common.nodes) + with_final_newline(common.output);
  std::string common_label = cluster::counted_nodes(common.nodes);
  for (size_t i = 1; i < groups.size(); ++i) {
    std::string diff = unified_diff(common.output, groups[i].output, common_label,
                                    cluster::counted_nodes(groups[i].nodes));
    if (diff.empty()) {  // the same output with another exit status
      diff = fmt::format("--- {}\n+++ {}\n(same output, exit status {})\n", common_label,
                         cluster::counted_nodes(groups[i].nodes), groups[i].status);
    }
    text += diff;
  }
  return text;
}

std::vector<std::string> failure_lines(const std::vector<NodeOutcome>& outcomes, double timeout_s) {
  std::map<std::string, std::vector<std::string>> by_failure;
  std::vector<std::string> order;  // failures in the order their first node appears
  for (const auto& outcome : outcomes) {
    std::string failure = describe_failure(outcome, timeout_s);
    if (failure.empty()) continue;
    auto& nodes = by_failure[failure];
    if (nodes.empty()) order.push_back(failure);
    nodes.push_back(outcome.node);
  }
  std::vector<std::string> lines;
  for (const auto& failure : order) {
    lines.push_back(fmt::format("{}: {}", cluster::counted_nodes(by_failure[failure]), failure));
  }
  return lines;
}

nlohmann::json outcomes_json(const std::vector<NodeOutcome>& outcomes) {
  nlohmann::json nodes = nlohmann::json::array();
  for (const auto& outcome : outcomes) {
    nodes.push_back({{"node", outcome.node},
                     {"ending", ending_name(outcome.ending)},
                     {"exit_status", exit_status(outcome)},
                     {"code", outcome.code},
                     {"stdout", outcome.out},
                     {"stderr", outcome.err},
                     {"reason", outcome.reason}});
  }
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& group : gather_outputs(outcomes)) {
    groups.push_back({{"nodes", cluster::fold_nodes(group.nodes)},
                      {"count", group.nodes.size()},
                      {"exit_status", group.status},
                      {"stdout", group.output}});
  }
  return {{"exit_code", worst_exit_status(outcomes)}, {"nodes", nodes}, {"groups", groups}};
}

}  // namespace muster::exec
