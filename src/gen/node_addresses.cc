#include "gen/node_addresses.h"

#include <algorithm>
#include <vector>

#include "gen/plan_queries.h"
#include "gen/provenance.h"
#include "util/edit_distance.h"

namespace muster::gen {
namespace {

bool is_ipv6_address(std::string_view text) {
  bool chars_ok = std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ':' || c == '.';
  });
  return chars_ok && std::count(text.begin(), text.end(), ':') >= 2 && text.size() <= 45;
}

}  // namespace

bool is_ip_address(std::string_view text) {
  return is_ipv4_address(text) || is_ipv6_address(text);
}

Result<void> check_addresses(const cluster::RankPlan& plan, const NetworkOptions& network,
                             std::string_view kind) {
  std::vector<std::string> names;
  for (const auto& node : plan.nodes) names.push_back(node.host.name);
  for (const auto& [name, address] : network.addresses) {
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      std::string hint;
      if (auto guess = closest_match(name, names)) hint = ", did you mean '" + *guess + "'?";
      return make_error(ErrorKind::usage, "{}: --address {}={}: '{}' is not one of the selected nodes{}",
                        kind, one_line(name), one_line(address), one_line(name), hint);
    }
    if (!is_ip_address(address)) {
      return make_error(ErrorKind::usage, "{}: --address {}={}: '{}' is not an IPv4 or IPv6 address", kind,
                        name, one_line(address), one_line(address));
    }
  }
  return {};
}

std::optional<std::string> node_address(const cluster::NodePlan& node, const NetworkOptions& network) {
  if (auto found = network.addresses.find(node.host.name); found != network.addresses.end())
    return found->second;
  if (is_ipv4_address(node.host.name)) return node.host.name;
  return std::nullopt;
}

}  // namespace muster::gen
