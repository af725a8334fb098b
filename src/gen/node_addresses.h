// The IP address of each node, for the kinds that write names next to addresses (ssh-config, hosts, nfs):
// `--address node1=10.0.0.1` pairs, or the node's own name when the hostfile lists it by address. Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "cluster/rank_plan.h"
#include "gen/gen_options.h"
#include "util/result.h"

namespace muster::gen {

// Usage errors for --address pairs that name no node of the plan (with "did you mean") or whose value is
// not an IPv4 or IPv6 address.
Result<void> check_addresses(const cluster::RankPlan& plan, const NetworkOptions& network,
                             std::string_view kind);

// The node's address, if known.
std::optional<std::string> node_address(const cluster::NodePlan& node, const NetworkOptions& network);

bool is_ip_address(std::string_view text);

}  // namespace muster::gen
